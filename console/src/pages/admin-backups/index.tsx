import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { adminStartRestore as restoreLimits, adminVerifyBackup as verifyLimits } from '../../api/limits.gen';
import { Link, navigate } from '../../app/router';
import { PanelForm, ReadOnlyNote, ScrollingTable, StatusBadge, useFullAdmin } from '../../components/admin-kit';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { check, Field, inputLimits } from '../../components/form';
import { bytes, when } from '../../components/format';
import { useAction, useLoad } from '../../components/use-load';
import { runPath } from './shared';

type Run = Paths['/admin/backups']['get']['responses'][200]['content']['application/json']['items'][number];

/** The key field: held in this form's state only, sent once, cleared after sending; never put in the browser's storage. */
function KeyField({ value, onInput, required }: { value: string; onInput: (value: string) => void; required?: boolean }) {
  return (
    <Field
      label={required ? 'Backup key (base64)' : 'Backup key (base64, read-capable)'}
      hint="Sent once for this run; neither the console nor the service keeps it"
    >
      <input
        name="backup_key_b64"
        type="password"
        autoComplete="off"
        spellcheck={false}
        value={value}
        {...inputLimits(verifyLimits.backup_key_b64)}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
    </Field>
  );
}

function ArchivePicker({
  archives,
  value,
  onChange,
  latest,
}: {
  archives: readonly string[];
  value: string;
  onChange: (name: string) => void;
  latest?: boolean;
}) {
  return (
    <Field label="Archive">
      <select name="archive_name" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {latest && <option value="">the latest archive</option>}
        {!latest && <option value="">choose an archive</option>}
        {archives.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </Field>
  );
}

function VerifyForm({ archives }: { archives: readonly string[] }) {
  const [archive, setArchive] = useState('');
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const verify = useAction(async () => {
    const invalid = check(verifyLimits.backup_key_b64, key.trim());
    setProblem(invalid);
    if (invalid) return;
    const sent = key.trim();
    setKey('');
    const run = ok(await api.POST('/admin/backups/verify', { body: { archive_name: archive || undefined, backup_key_b64: sent } }));
    navigate(runPath(run.id));
  });
  return (
    <PanelForm
      title="Verify an archive"
      intro={<p class="hint">Reads the archive back with the key and checks every entry against its manifest, without changing anything.</p>}
      submit="Verify"
      disabled={verify.busy}
      onSubmit={() => void verify.run()}
      error={problem ?? verify.error}
    >
      <ArchivePicker archives={archives} value={archive} onChange={setArchive} latest />
      <KeyField value={key} onInput={setKey} />
    </PanelForm>
  );
}

function RestoreForm({ archives }: { archives: readonly string[] }) {
  const [archive, setArchive] = useState('');
  const [confirm, setConfirm] = useState('');
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const expected = `restore ${archive}`;
  const restore = useAction(async () => {
    const invalid =
      (archive ? check(restoreLimits.archive_name, archive) : 'choose the archive to restore') ??
      (confirm.trim() === expected ? null : `confirm must be exactly "${expected}"`) ??
      check(restoreLimits.backup_key_b64, key.trim());
    setProblem(invalid);
    if (invalid) return;
    const sent = key.trim();
    setKey('');
    const run = ok(await api.POST('/admin/restores', { body: { archive_name: archive, confirm: confirm.trim(), backup_key_b64: sent } }));
    navigate(runPath(run.id));
  });
  return (
    <PanelForm
      title="Restore an archive"
      danger
      intro={
        <p>
          Replaces <strong>all current data</strong> of every customer with the archive's, and turns maintenance mode on while it runs. The records of backup,
          verify and restore runs are kept. Verify the archive first.
        </p>
      }
      submit="Restore"
      disabled={restore.busy || !archive || confirm.trim() !== expected}
      onSubmit={() => void restore.run()}
      error={problem ?? restore.error}
      after={
        <Field label={archive ? `Type “${expected}” to confirm` : 'Confirmation'} hint="restore followed by the archive's name">
          <input name="confirm" value={confirm} autoComplete="off" {...inputLimits(restoreLimits.confirm)} onInput={(e) => setConfirm(e.currentTarget.value)} />
        </Field>
      }
    >
      <ArchivePicker archives={archives} value={archive} onChange={setArchive} />
      <KeyField value={key} onInput={setKey} required />
    </PanelForm>
  );
}

/** Backups: the runs (backup, verify, restore) with the backend; run a backup, verify, restore. */
export function AdminBackupsPage() {
  const full = useFullAdmin();
  const runs = useLoad(async () => ok(await api.GET('/admin/backups', { params: { query: { limit: 50 } } })), []);
  const start = useAction(async () => {
    const run = ok(await api.POST('/admin/backups'));
    navigate(runPath(run.id));
  });
  const items: readonly Run[] = runs.data?.items ?? [];
  const archives = [...new Set(items.filter((r) => r.kind === 'backup' && r.status === 'succeeded' && r.archive_name).map((r) => r.archive_name!))];
  return (
    <section>
      <h1>Backups</h1>
      <ReadOnlyNote />
      {runs.data && (
        <p>
          Archives are stored in the{' '}
          <strong id="backup-backend">{runs.data.backend === 's3' ? 'off-site object store (s3)' : 'local directory (local)'}</strong> backend, encrypted to the
          backup public key. A backup also runs every day on schedule.
        </p>
      )}
      {full && (
        <div class="actions">
          <button type="button" class="primary" disabled={start.busy} onClick={() => void start.run()}>
            Run a backup now
          </button>
        </div>
      )}
      <ErrorMessage error={runs.error ?? start.error} />
      <h2>Runs</h2>
      {runs.data === undefined ? (
        runs.loading && <Loading what="backup runs" />
      ) : items.length === 0 ? (
        <Empty>No backups yet. {full ? 'Run one now, or wait for the daily schedule.' : 'A full administrator can run one, or the daily schedule will.'}</Empty>
      ) : (
        <ScrollingTable
          label="Backup runs"
          id="backup-runs"
          columns={['Run', 'Status', 'Archive', { text: 'Objects', num: true }, { text: 'Size', num: true }, 'By', 'Started', 'Finished']}
        >
          {items.map((run) => (
            <tr key={run.id}>
              <td>
                <Link href={runPath(run.id)}>
                  {run.kind} {when(run.created_at)}
                </Link>
              </td>
              <td>
                <StatusBadge status={run.status} />
                {run.error && <div class="hint cell-wrap">{run.error}</div>}
              </td>
              <td class="mono">{run.archive_name ?? '—'}</td>
              <td class="num">{run.object_count ?? '—'}</td>
              <td class="num">{run.total_bytes === null ? '—' : bytes(run.total_bytes)}</td>
              <td class="mono">{run.initiated_by}</td>
              <td>{when(run.started_at)}</td>
              <td>{when(run.finished_at)}</td>
            </tr>
          ))}
        </ScrollingTable>
      )}
      {full && runs.data && (
        <>
          <VerifyForm archives={archives} />
          <RestoreForm archives={archives} />
        </>
      )}
    </section>
  );
}
