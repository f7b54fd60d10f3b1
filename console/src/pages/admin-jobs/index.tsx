import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { adminJobs as limits } from '../../api/limits.gen';
import { useQueryState } from '../../app/router';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { Table } from '../../components/table';
import { JsonDetails, StatusBadge } from '../../components/admin';
import { anyOf, FilterForm, LimitField, limitParam, limitProblem, QuerySelect } from '../../components/filters';
import { when } from '../../components/format';
import { useLoad } from '../../components/use-load';

type JobStatus = Paths['/admin/jobs']['get']['responses'][200]['content']['application/json']['items'][number]['status'];
/** Every status a job can have; the record makes the type check fail when the API adds one. */
const JOB_STATUSES = Object.keys({ queued: true, running: true, succeeded: true, failed: true } satisfies Record<JobStatus, true>);

/** Background jobs: queued, running and recently finished, newest first. */
export function AdminJobsPage() {
  const [query, setQuery] = useQueryState();
  const limit = query.get('limit') ?? '100';
  const status = query.get('status') ?? '';
  const [limitText, setLimitText] = useState(limit);
  const [problem, setProblem] = useState<string | null>(null);
  const jobs = useLoad(async () => ok(await api.GET('/admin/jobs', { params: { query: { limit: Number(limit) } } })).items, [limit]);
  const shown = (jobs.data ?? []).filter((job) => !status || job.status === status);
  return (
    <section>
      <h1>Background jobs</h1>
      <p class="hint">
        Mail, scheduled work (backups, detectors, clean-ups) and other work done in the background, newest first. A failed job shows its last error; jobs are
        retried up to their maximum attempts.
      </p>
      <FilterForm
        label="Filter background jobs"
        problem={problem}
        onApply={() => {
          const invalid = limitProblem(limits.limit, limitText, '100');
          setProblem(invalid);
          if (!invalid) setQuery({ limit: limitParam(limitText, '100') });
        }}
        extra={
          <button type="button" onClick={() => jobs.reload()}>
            Refresh
          </button>
        }
      >
        <QuerySelect label="Status" name="status" options={anyOf(JOB_STATUSES)} />
        <LimitField name="limit" value={limitText} onInput={setLimitText} limits={limits.limit} label="How many, newest first" />
      </FilterForm>
      <ErrorMessage error={jobs.error} />
      {jobs.data === undefined ? (
        jobs.loading && <Loading what="jobs" />
      ) : shown.length === 0 ? (
        <Empty>
          {status ? `No ${status} job among the latest ${limit}.` : 'No background jobs yet: they appear when mail is sent or scheduled work runs.'}
        </Empty>
      ) : (
        <Table
          wrapClass="admin-table"
          label="Background jobs"
          id="jobs"
          columns={['Kind', 'Status', 'Attempts', 'Run at', 'Finished', 'Last error', 'Slot', 'Payload']}
        >
          {shown.map((job) => (
            <tr key={job.id}>
              <td class="mono">{job.kind}</td>
              <td>
                <StatusBadge status={job.status} />
              </td>
              <td class="num">
                {job.attempts} / {job.max_attempts}
              </td>
              <td>{when(job.run_at ?? job.created_at)}</td>
              <td>{when(job.finished_at)}</td>
              <td class="cell-wrap">{job.last_error ?? '—'}</td>
              <td class="mono cell-wrap">{job.slot}</td>
              <td>
                <JsonDetails summary="payload" value={job.payload} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
