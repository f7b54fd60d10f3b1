import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { adminStartRestore as restoreLimits, adminVerifyBackup as verifyLimits } from '../../api/limits.gen';
import { Link, navigate } from '../../app/router';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { Table } from '../../components/table';
import { ReadOnlyNote, StatusBadge, useFullAdmin } from '../../components/admin';
import { check, Field, inputLimits, PanelForm } from '../../components/form';
import { bytes, when } from '../../components/format';
import { Person } from '../../components/person';
import { useAction, useLoad } from '../../components/use-load';
import { runPath } from './shared';

type BackupList = Paths['/admin/backups']['get']['responses'][200]['content']['application/json'];
type Run = BackupList['items'][number];
type BackupKey = BackupList['key'];

/**
 * The key field: held in this form's state only, sent once, cleared after sending; never put in
 * the browser's storage. With the service's generated key it may stay empty.
 */
function KeyField({ value, onInput, generated }: { value: string; onInput: (value: string) => void; generated: boolean }) {
  return (
    <Field
      label={generated ? 'Backup key (base64, optional)' : 'Backup key (base64)'}
      hint={
        generated
          ? "Leave empty to use the service's own key; a key entered here is sent once for this run and kept nowhere"
          : 'Sent once for this run; neither the console nor the service keeps it'
      }
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

/** The key to send: none (the service's generated key) when left empty and the service has one; otherwise checked against the API's limits. */
function keyProblem(key: string, generated: boolean): string | null {
  return generated && key === '' ? null : check(verifyLimits.backup_key_b64, key);
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

function VerifyForm({ archives, generated }: { archives: readonly string[]; generated: boolean }) {
  const [archive, setArchive] = useState('');
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const verify = useAction(async () => {
    const invalid = keyProblem(key.trim(), generated);
    setProblem(invalid);
    if (invalid) return;
    const sent = key.trim();
    setKey('');
    const run = ok(await api.POST('/admin/backups/verify', { body: { archive_name: archive || undefined, backup_key_b64: sent || undefined } }));
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
      <KeyField value={key} onInput={setKey} generated={generated} />
    </PanelForm>
  );
}

function RestoreForm({ archives, generated }: { archives: readonly string[]; generated: boolean }) {
  const [archive, setArchive] = useState('');
  const [confirm, setConfirm] = useState('');
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const expected = `restore ${archive}`;
  const restore = useAction(async () => {
    const invalid =
      (archive ? check(restoreLimits.archive_name, archive) : 'choose the archive to restore') ??
      (confirm.trim() === expected ? null : `confirm must be exactly "${expected}"`) ??
      keyProblem(key.trim(), generated);
    setProblem(invalid);
    if (invalid) return;
    const sent = key.trim();
    setKey('');
    const run = ok(await api.POST('/admin/restores', { body: { archive_name: archive, confirm: confirm.trim(), backup_key_b64: sent || undefined } }));
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
      <KeyField value={key} onInput={setKey} generated={generated} />
    </PanelForm>
  );
}

/** Where the backup key's halves are, and what that asks of the operator. */
function KeyNote({ backupKey }: { backupKey: BackupKey }) {
  if (backupKey.source === 'none') {
    return (
      <p class="error" role="alert" id="backup-key">
        Backups are not configured: no backup runs, not even the daily one. Set <code>BACKUP_PUBLIC_KEY</code> on every admin process to the public key (
        <code>age1…</code>) that <code>npm run cli -- backup keygen</code> prints.
      </p>
    );
  }
  if (backupKey.source === 'configured') {
    return (
      <p id="backup-key">
        Archives are encrypted to <code>BACKUP_PUBLIC_KEY</code>; the service holds no secret key, so verify and restore need the secret key sent with them.
      </p>
    );
  }
  return (
    <Notice>
      <span id="backup-key">
        Archives are encrypted to a key pair the service generated. Its secret half lies in <code class="cell-wrap">{backupKey.secret_key_file}</code> on the
        service's machine; verify and restore use it when no key is given. <strong>Keep a copy of that file off this machine</strong>: without it no archive can
        be read once the machine is lost.
      </span>
    </Notice>
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
          backup public key. {runs.data.key.source === 'none' ? '' : 'A backup also runs every day on schedule.'}
        </p>
      )}
      {runs.data && <KeyNote backupKey={runs.data.key} />}
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
        <Table
          wrapClass="admin-table"
          label="Backup runs"
          id="backup-runs"
          columns={['Run', 'Status', 'Archive', { label: 'Objects', num: true }, { label: 'Size', num: true }, 'By', 'Started', 'Finished']}
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
              <td>
                <Person actor={run.initiated_by} />
              </td>
              <td>{when(run.started_at)}</td>
              <td>{when(run.finished_at)}</td>
            </tr>
          ))}
        </Table>
      )}
      {full && runs.data && (
        <>
          <VerifyForm archives={archives} generated={runs.data.key.source === 'generated'} />
          <RestoreForm archives={archives} generated={runs.data.key.source === 'generated'} />
        </>
      )}
    </section>
  );
}
