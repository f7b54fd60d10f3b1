import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { Link } from '../../app/router';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { when } from '../../components/format';
import { Pager } from '../../components/pager';
import { Table } from '../../components/table';
import { useLoad } from '../../components/use-load';

const REPORTS_PAGE = 25;

const OUTCOME_LABELS = { installed: 'installed', failed: 'failed', rolled_back: 'rolled back' } as const;

/**
 * The install outcomes the device reported, signed with its key (GET /devices/{hwid}/reports):
 * newest first, with the device's reason for a failure or a rollback.
 */
export function DeviceReports({ hwid, version }: { hwid: string; version: number }) {
  const [offset, setOffset] = useState(0);
  const reports = useLoad(
    async () => ok(await api.GET('/devices/{hwid}/reports', { params: { path: { hwid }, query: { limit: REPORTS_PAGE, offset } } })),
    [hwid, offset, version],
  );
  return (
    <section class="panel" aria-labelledby="reports-heading">
      <h2 id="reports-heading">Install reports</h2>
      <ErrorMessage error={reports.error} />
      {reports.data === undefined ? (
        reports.loading && <Loading what="the install reports" />
      ) : reports.data.items.length === 0 ? (
        <Empty>No install reported yet: a device reports with a signed report after it installs a build (docs: Device reports).</Empty>
      ) : (
        <Table label="Install reports" columns={['Outcome', 'Version', 'Reason', 'Reported', 'In a rollout']}>
          {reports.data.items.map((report) => (
            <tr key={report.report_id}>
              <td class={`outcome-${report.outcome}`}>{OUTCOME_LABELS[report.outcome]}</td>
              <td>
                <Link href={`/console/firmware/${encodeURIComponent(report.build_id)}`}>{report.fw_version}</Link>
              </td>
              <td>{report.reason ?? '—'}</td>
              <td>{when(report.reported_at)}</td>
              <td>{report.rollout_offers > 0 ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </Table>
      )}
      <Pager offset={offset} limit={REPORTS_PAGE} nextOffset={reports.data?.next_offset} onOffset={setOffset} />
    </section>
  );
}
