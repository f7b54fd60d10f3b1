import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { statsEvents as eventLimits } from '../../api/limits.gen';
import { useQueryState } from '../../app/router';
import { DayChart } from '../../components/bar-chart';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { Field } from '../../components/form';
import { bytes, when } from '../../components/format';
import { Pager } from '../../components/pager';
import { Table } from '../../components/table';
import { useLoad } from '../../components/use-load';

const PAGE_SIZE = 50;
const SERIES = [
  ['requests', 'Requests'],
  ['update_checks', 'Update checks'],
  ['firmware_downloads', 'Firmware downloads'],
  ['errors', 'Errors'],
] as const;

/** The customer's statistics by day (GET /stats/summary) and its access log (GET /stats/events). */
export function UsagePage() {
  const [query, setQuery] = useQueryState();
  const [status, setStatus] = useState(query.get('status') ?? '');
  const offset = Number(query.get('offset') ?? '0');
  const summary = useLoad(async () => ok(await api.GET('/stats/summary')), []);
  const events = useLoad(
    async () =>
      ok(
        await api.GET('/stats/events', {
          params: { query: { status: query.get('status') ? Number(query.get('status')) : undefined, limit: PAGE_SIZE, offset } },
        }),
      ),
    [query.toString()],
  );
  const days = summary.data?.days ?? [];
  return (
    <section>
      <h1>Usage</h1>
      <ErrorMessage error={summary.error} />
      {summary.data === undefined ? (
        summary.loading && <Loading what="statistics" />
      ) : (
        <>
          <p class="hint">
            {summary.data.from} to {summary.data.to} (UTC days). New requests show within 30 seconds.
          </p>
          <div class="charts">
            {SERIES.map(([key, title]) => (
              <DayChart key={key} title={`${title} by day`} days={days.map((d) => ({ day: d.day, value: d[key] }))} />
            ))}
          </div>
        </>
      )}
      <h2>Access log</h2>
      <form
        class="actions"
        noValidate
        aria-label="Filter the access log"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ status, offset: null });
        }}
      >
        <Field label="Status" hint="e.g. 404" inline>
          <input
            inputMode="numeric"
            value={status}
            maxLength={String(eventLimits.status.maximum).length}
            size={4}
            onInput={(e) => setStatus(e.currentTarget.value.replace(/\D/g, ''))}
          />
        </Field>
        <button type="submit">Show</button>
      </form>
      <ErrorMessage error={events.error} />
      {events.data === undefined ? (
        events.loading && <Loading what="the access log" />
      ) : events.data.items.length === 0 ? (
        <Empty>No requests in the last 7 days{query.get('status') ? ' with this status' : ''}.</Empty>
      ) : (
        <>
          <Table columns={['Time', 'Request', { label: 'Status', num: true }, 'Who', 'Address', { label: 'Size', num: true }, { label: 'ms', num: true }]}>
            {events.data.items.map((e) => (
              <tr key={e.request_id}>
                <td>{when(e.ts)}</td>
                <td class="mono">
                  {e.method} {e.path}
                </td>
                <td class="num">{e.status}</td>
                <td class="mono">{e.actor ?? '—'}</td>
                <td class="mono">{e.ip}</td>
                <td class="num">{bytes(e.bytes_out)}</td>
                <td class="num">{e.duration_ms}</td>
              </tr>
            ))}
          </Table>
          <Pager offset={offset} limit={PAGE_SIZE} nextOffset={events.data.next_offset} onOffset={(next) => setQuery({ offset: next ? String(next) : null })} />
        </>
      )}
    </section>
  );
}
