import { useEffect } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { Link } from '../../app/router';
import { ErrorMessage, Loading } from '../../components/feedback';
import { StatusBadge } from '../../components/admin';
import { bytes, when } from '../../components/format';
import { Person } from '../../components/person';
import { useLoad } from '../../components/use-load';
import type { PageProps } from '../../routes';

/** How often a queued or running run is asked again. */
const POLL_MS = 2000;

/** One backup, verify or restore run: its fields and its log, followed while it works. */
export function AdminBackupRunPage({ params }: PageProps) {
  const run = useLoad(async () => ok(await api.GET('/admin/backups/{id}', { params: { path: { id: params.id } } })), [params.id]);
  const working = run.data?.status === 'queued' || run.data?.status === 'running';
  useEffect(() => {
    if (!working) return;
    const timer = window.setTimeout(() => run.reload(), POLL_MS);
    return () => window.clearTimeout(timer);
  }, [working, run.data]);
  const data = run.data;
  return (
    <section>
      <p>
        <Link href="/console/admin/backups">All backups</Link>
      </p>
      <h1>
        {data ? `${data.kind[0].toUpperCase()}${data.kind.slice(1)} run` : 'Backup run'} {data && <StatusBadge status={data.status} />}
      </h1>
      <ErrorMessage error={run.error} />
      {data === undefined ? (
        run.loading && <Loading what="the run" />
      ) : (
        <>
          {working && (
            <p class="loading" role="status">
              Working… this page follows it.
            </p>
          )}
          {data.error && (
            <p class="error" role="alert">
              {data.error}
            </p>
          )}
          <dl class="facts">
            <dt>Id</dt>
            <dd class="mono">{data.id}</dd>
            <dt>Kind</dt>
            <dd>{data.kind}</dd>
            <dt>Status</dt>
            <dd id="run-status">{data.status}</dd>
            <dt>Archive</dt>
            <dd class="mono">{data.archive_name ?? '—'}</dd>
            <dt>Objects</dt>
            <dd>{data.object_count ?? '—'}</dd>
            <dt>Size before encryption</dt>
            <dd>{data.total_bytes === null ? '—' : bytes(data.total_bytes)}</dd>
            <dt>Started by</dt>
            <dd>
              <Person actor={data.initiated_by} />
            </dd>
            <dt>Queued</dt>
            <dd>{when(data.created_at)}</dd>
            <dt>Started</dt>
            <dd>{when(data.started_at)}</dd>
            <dt>Finished</dt>
            <dd>{when(data.finished_at)}</dd>
          </dl>
          <h2>Log</h2>
          {data.log ? (
            <pre class="log" tabIndex={0} aria-label="Run log">
              {data.log}
            </pre>
          ) : (
            <p class="hint">Nothing logged yet.</p>
          )}
        </>
      )}
    </section>
  );
}
