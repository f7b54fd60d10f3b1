import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { when } from '../../components/format';
import { Pager } from '../../components/pager';
import { Table } from '../../components/table';
import { useLoad } from '../../components/use-load';

const HISTORY_PAGE = 25;

/**
 * The versions the device reported over time (GET /devices/{hwid}/history): a row per version
 * change, newest first, so a rollback shows as an older version after the new one.
 */
export function DeviceHistory({ hwid, version }: { hwid: string; version: number }) {
  const [offset, setOffset] = useState(0);
  const history = useLoad(
    async () => ok(await api.GET('/devices/{hwid}/history', { params: { path: { hwid }, query: { limit: HISTORY_PAGE, offset } } })),
    [hwid, offset, version],
  );
  return (
    <section class="panel" aria-labelledby="history-heading">
      <h2 id="history-heading">Version history</h2>
      <ErrorMessage error={history.error} />
      {history.data === undefined ? (
        history.loading && <Loading what="the version history" />
      ) : history.data.items.length === 0 ? (
        <Empty>No version reported yet: the history starts with the device&apos;s first update check.</Empty>
      ) : (
        <Table columns={['Version', 'Product line', 'First reported']}>
          {history.data.items.map((entry) => (
            <tr key={`${entry.seen_at} ${entry.fw_version}`}>
              <td>{entry.fw_version}</td>
              <td class="mono">{entry.hw_name ? `${entry.hw_name} / ${entry.hw_version ?? '—'} / ${entry.fw_name ?? '—'}` : '—'}</td>
              <td>{when(entry.seen_at)}</td>
            </tr>
          ))}
        </Table>
      )}
      <Pager offset={offset} limit={HISTORY_PAGE} nextOffset={history.data?.next_offset} onOffset={setOffset} />
    </section>
  );
}
