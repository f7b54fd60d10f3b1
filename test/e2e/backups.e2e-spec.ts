import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createBackupStore, generateBackupKeyPair, loadConfig, type BackupStore } from '@app/infra';
import { expectStatus, readOnlyAdministrator } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { runCli } from './support/cli.js';
import { randomLogName, sleep } from './support/factories.js';
import { createBuild, productLine } from './support/firmware.js';
import type { HttpReply, Session } from './support/http.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';
import { RFC3339 } from './support/formats.js';

/**
 * Backups, verifies and restores (docs/api.md "Backups and restores", docs/operations.md
 * "Backups and restores"): standalone on the local backend, distributed on the off-site S3
 * backend (a second s3rver). Back up, change data, restore: every file byte for byte and every
 * row as it was, the run records kept; damaged archives refused with the reason.
 */

interface RunBody {
  id: string;
  kind: 'backup' | 'verify' | 'restore';
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  archive_name: string | null;
  object_count: number | null;
  total_bytes: number | null;
  initiated_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  log?: string;
}

const ARCHIVE = /^backup-\d{8}T\d{6}Z-[0-9a-f]{8}\.age$/;
const b64 = (text: string) => Buffer.from(text).toString('base64');

async function bytesOf(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

describe('backups, verify and restore', () => {
  let rt: Runtime;
  let admin: string;
  let readOnly: Session;
  let store: BackupStore;
  let a: CustomerFixture;
  let gone: CustomerFixture;
  const line = productLine();
  const logName = randomLogName();
  // Several 64 KiB encryption chunks, so that damage in the middle is not at the end.
  const logBody = randomBytes(400 * 1024);
  let build: Awaited<ReturnType<typeof createBuild>>;
  let backup: RunBody;
  const runIds: string[] = [];

  const run = async (id: string) => expectStatus(await rt.http.get(`/admin/backups/${id}`, { auth: admin }), 200).json<RunBody>();
  const finished = async (id: string, timeoutMs = 60_000): Promise<RunBody> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const body = await run(id);
      if (body.status === 'succeeded' || body.status === 'failed') return body;
      if (Date.now() > deadline) throw new Error(`run ${id} still ${body.status}: ${body.log}`);
      await sleep(100);
    }
  };
  const queued = (reply: HttpReply, kind: RunBody['kind']): string => {
    expectStatus(reply, 202);
    const body = reply.json<{ id: string; kind: string; status: string }>();
    expect(body).toEqual({ id: expect.any(String), kind, status: 'queued' });
    runIds.push(body.id);
    return body.id;
  };
  const verify = async (json: Record<string, unknown>) => finished(queued(await rt.http.post('/admin/backups/verify', { auth: admin, json }), 'verify'));
  const download = async (token: string, path: string) => {
    const redirect = await rt.http.get(path, { auth: token });
    expect(redirect.status).toBe(302);
    return (await rt.http.follow(redirect.header('location')!)).reply;
  };
  /** A copy of the archive under another valid name, changed by `change`. */
  const copyArchive = async (change: (bytes: Buffer) => Buffer, suffix: string): Promise<string> => {
    const original = await bytesOf((await store.read(backup.archive_name!))!);
    const name = backup.archive_name!.replace(/-[0-9a-f]{8}\.age$/, `-${suffix}.age`);
    await store.write(name, Readable.from([change(Buffer.from(original))]));
    return name;
  };

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    readOnly = await readOnlyAdministrator(rt, admin);
    store = createBackupStore(loadConfig(rt.backupEnv));
    a = await rt.newCustomer();
    gone = await rt.newCustomer();
    build = await createBuild(rt, a.full, line, '1.0.0', { notes: 'first release', general: true });
    expectStatus(await rt.http.put(`/logdata/${logName}`, { auth: a.uploader, body: logBody }), 200);
    expectStatus(await rt.http.post('/devices', { auth: a.full, json: { hwid: 'SN-KEEP', tags: ['beta'], attributes: { site: 'north' } } }), 201);
    expectStatus(await rt.http.post('/devices', { auth: gone.full, json: { hwid: 'SN-GONE' } }), 201);
  }, 120_000);
  afterAll(async () => {
    await rt?.stop();
  });

  it('backs up every app and every stored file into one archive, recorded as a run with its log', async () => {
    const [first, second] = await Promise.all([rt.http.post('/admin/backups', { auth: admin }), rt.http.post('/admin/backups', { auth: admin })]);
    const accepted = [first, second].filter((r) => r.status === 202);
    expect(accepted).toHaveLength(1);
    expectProblem(
      [first, second].find((r) => r.status !== 202)!,
      409,
      { detail: 'a backup or restore is already queued or running', code: 'backup_run_busy' },
    );
    backup = await finished(queued(accepted[0], 'backup'));
    expect(backup).toEqual({
      id: runIds[0],
      kind: 'backup',
      status: 'succeeded',
      archive_name: expect.stringMatching(ARCHIVE),
      object_count: expect.any(Number),
      total_bytes: expect.any(Number),
      initiated_by: expect.stringMatching(/^token:/),
      created_at: expect.stringMatching(RFC3339),
      started_at: expect.stringMatching(RFC3339),
      finished_at: expect.stringMatching(RFC3339),
      error: null,
      log: expect.stringContaining('archive written'),
    });
    // Five dumps, the build's binary and notes, the log file (and the files of other tests' data).
    expect(backup.object_count).toBeGreaterThanOrEqual(8);
    expect(backup.total_bytes).toBeGreaterThan(logBody.length);
    expect((await store.list()).map((s) => s.name)).toContain(backup.archive_name);

    const list = expectStatus(await rt.http.get('/admin/backups', { auth: readOnly, query: { limit: 1 } }), 200).json<{ backend: string; items: RunBody[] }>();
    expect(list.backend).toBe(rt.runtime === 'standalone' ? 'local' : 's3');
    const { log: _log, ...summary } = backup;
    expect(list.items).toEqual([summary]);
  });

  it('lets read-only administrators read but not act, and checks the input', async () => {
    expectStatus(await rt.http.get(`/admin/backups/${backup.id}`, { auth: readOnly }), 200);
    expectStatus(await rt.http.post('/admin/backups', { auth: readOnly }), 403);
    expectStatus(
      await rt.http.post('/admin/restores', { auth: readOnly, json: { archive_name: backup.archive_name, confirm: `restore ${backup.archive_name}` } }),
      403,
    );
    expectStatus(await rt.http.get('/admin/backups', { auth: a.full }), 403);
    expectProblem(await rt.http.get('/admin/backups', { auth: admin, query: { limit: 501 } }), 400, 'limit must be an integer from 1 to 500');
    expectProblem(await rt.http.get('/admin/backups/00000000-0000-4000-8000-000000000000', { auth: admin }), 404, {
      detail: 'backup run not found',
      code: 'backup_run_not_found',
    });
    expectProblem(
      await rt.http.post('/admin/restores', {
        auth: admin,
        json: { archive_name: backup.archive_name, confirm: 'restore', backup_key_b64: b64(rt.backupSecretKey) },
      }),
      400,
      { detail: `confirm must be exactly "restore ${backup.archive_name}"`, code: 'restore_confirm_mismatch' },
    );
    expectProblem(
      await rt.http.post('/admin/restores', { auth: admin, json: { archive_name: backup.archive_name, confirm: `restore ${backup.archive_name}` } }),
      400,
      { detail: 'backup_key_b64 is required: the service holds only the public key', code: 'backup_key_required' },
    );
    expectProblem(await rt.http.post('/admin/backups/verify', { auth: admin, json: { backup_key_b64: b64('not a key') } }), 400, {
      detail: /age secret key/,
      code: 'backup_key_invalid',
    });
  });

  it('verifies the latest archive with the key, and records a verify from elsewhere', async () => {
    const verified = await verify({ backup_key_b64: b64(rt.backupSecretKey) });
    expect(verified).toMatchObject({ kind: 'verify', status: 'succeeded', archive_name: backup.archive_name, object_count: backup.object_count, error: null });
    expect(verified.log).toContain('stored files match their sizes and SHA-256');
    expect(verified.log).not.toContain(rt.backupSecretKey);

    const reported = expectStatus(
      await rt.http.post('/admin/backups/verify-report', {
        auth: admin,
        json: { archive_name: backup.archive_name, ok: false, detail: 'checked on the vault host: disk error' },
      }),
      200,
    ).json<RunBody>();
    runIds.push(reported.id);
    expect(reported).toMatchObject({ kind: 'verify', status: 'failed', archive_name: backup.archive_name, error: 'checked on the vault host: disk error' });
  });

  it('verifies an archive offline with the CLI, with no service, and reports the result', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fds-e2e-verify-'));
    try {
      const file = join(dir, backup.archive_name!);
      await writeFile(file, await bytesOf((await store.read(backup.archive_name!))!));
      const keygen = await runCli(['backup', 'keygen'], {});
      expect(keygen.code).toBe(0);
      expect(keygen.stdout).toMatch(/^# public key: age1/m);
      expect(keygen.stderr).toContain('BACKUP_PUBLIC_KEY=age1');
      await writeFile(join(dir, 'other.key'), keygen.stdout);
      await writeFile(join(dir, 'backup.key'), `# the key of this runtime\n${rt.backupSecretKey}\n`);

      const ok = await runCli(['backup', 'verify', file, '--key', join(dir, 'backup.key'), '--report', rt.baseUrl], { FDS_ADMIN_TOKEN: admin });
      expect(ok).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^OK ${backup.archive_name!.replace(/\./g, '\\.')}: verified offline`)) });
      const wrong = await runCli(['backup', 'verify', file, '--key', 'env:OTHER_KEY'], { OTHER_KEY: keygen.stdout });
      expect(wrong).toMatchObject({ code: 1, stdout: expect.stringContaining('FAILED') });
      expect(wrong.stdout).toContain('wrong_key: ');

      const [reported] = expectStatus(await rt.http.get('/admin/backups', { auth: admin, query: { limit: 1 } }), 200).json<{ items: RunBody[] }>().items;
      expect(reported).toMatchObject({
        kind: 'verify',
        status: 'succeeded',
        archive_name: backup.archive_name,
        initiated_by: expect.stringMatching(/^verify-report:/),
      });
      runIds.push(reported.id);
      expect((await run(reported.id)).log).toContain('verified offline');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names a wrong key, a tampered archive and a truncated archive in a failed run', async () => {
    const other = await generateBackupKeyPair();
    const wrong = await verify({ archive_name: backup.archive_name, backup_key_b64: b64(other.secretKey) });
    expect(wrong).toMatchObject({ status: 'failed', error: expect.stringMatching(/^wrong_key: /) });

    const tampered = await copyArchive((bytes) => {
      bytes[Math.floor(bytes.length / 2)] ^= 0x40;
      return bytes;
    }, 'aaaaaaaa');
    expect(await verify({ archive_name: tampered, backup_key_b64: b64(rt.backupSecretKey) })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^damaged: /),
    });

    const truncated = await copyArchive((bytes) => bytes.subarray(0, Math.floor(bytes.length * 0.9)), 'bbbbbbbb');
    expect(await verify({ archive_name: truncated, backup_key_b64: b64(rt.backupSecretKey) })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^truncated: /),
    });
    // A restore from a damaged archive replaces nothing and puts maintenance back.
    const refused = await finished(
      queued(
        await rt.http.post('/admin/restores', {
          auth: admin,
          json: { archive_name: tampered, confirm: `restore ${tampered}`, backup_key_b64: b64(rt.backupSecretKey) },
        }),
        'restore',
      ),
    );
    expect(refused).toMatchObject({ status: 'failed', error: expect.stringMatching(/^damaged: /) });
    expect(expectStatus(await rt.http.get('/admin/settings/maintenance', { auth: admin }), 200).json<{ enabled: boolean }>().enabled).toBe(false);
    await store.delete(tampered);
    await store.delete(truncated);
  });

  it('restores: every file byte for byte and every row as it was, in a maintenance window, with the run records kept', async () => {
    // Changes after the backup: a new file, a new build, a changed and a new device, a deleted customer.
    const newLog = randomLogName();
    expectStatus(await rt.http.put(`/logdata/${newLog}`, { auth: a.uploader, body: randomBytes(1000) }), 200);
    const newBuild = await createBuild(rt, a.full, line, '2.0.0', { general: true });
    expectStatus(await rt.http.request('PATCH', '/devices/SN-KEEP', { auth: a.full, json: { attributes: { site: 'south' } } }), 200);
    expectStatus(await rt.http.post('/devices', { auth: a.full, json: { hwid: 'SN-NEW' } }), 201);
    expectStatus(await rt.http.delete(`/admin/customers/${gone.domain}`, { auth: admin, query: { confirm: gone.domain } }), 204);
    for (const deadline = Date.now() + 30_000; (await rt.http.get(`/admin/customers/${gone.domain}`, { auth: admin })).status !== 404;) {
      if (Date.now() > deadline) throw new Error(`${gone.domain} was not deleted`);
      await sleep(200);
    }

    const id = queued(
      await rt.http.post('/admin/restores', {
        auth: admin,
        json: { archive_name: backup.archive_name, confirm: `restore ${backup.archive_name}`, backup_key_b64: b64(rt.backupSecretKey) },
      }),
      'restore',
    );
    // Seen from outside: writes answer 503 while it runs.
    const statuses = new Set<number>();
    let restored = await run(id);
    while (restored.status === 'queued' || restored.status === 'running') {
      const write = await rt.http.post('/devices', { auth: a.full, json: { hwid: `SN-PROBE-${statuses.size}-${Date.now()}` } });
      statuses.add(write.status);
      if (write.status === 503) expect(write.header('retry-after')).toBe('300');
      restored = await run(id);
    }
    restored = await finished(id);
    expect(restored).toMatchObject({ kind: 'restore', status: 'succeeded', archive_name: backup.archive_name, error: null, object_count: backup.object_count });
    expect(restored.log).toContain('maintenance on');
    expect(statuses).toContain(503);
    // Maintenance back off (as it was); writes work again.
    for (const deadline = Date.now() + 10_000; ;) {
      const probe = await rt.http.get('/admin/settings/maintenance', { auth: admin });
      if (probe.json<{ enabled: boolean }>().enabled === false) break;
      if (Date.now() > deadline) throw new Error('maintenance stayed on');
      await sleep(100);
    }

    // Files byte for byte; what came later is gone.
    expect((await download(a.readOnly, `/logdata/${logName}`)).body.equals(logBody)).toBe(true);
    expectStatus(await rt.http.get(`/logdata/${newLog}/meta`, { auth: a.readOnly }), 404);
    expect((await download(a.readOnly, `/firmware/${build.id}/binary`)).body.equals(build.binary)).toBe(true);
    expect((await download(a.readOnly, `/firmware/${build.id}/notes`)).body.toString()).toBe('first release');
    expectStatus(await rt.http.get(`/firmware/${newBuild.id}`, { auth: a.readOnly }), 404);
    // Rows as they were.
    const device = expectStatus(await rt.http.get('/devices/SN-KEEP', { auth: a.readOnly }), 200).json<{ attributes: object; tags: string[] }>();
    expect(device).toMatchObject({ attributes: { site: 'north' }, tags: ['beta'] });
    expectStatus(await rt.http.get('/devices/SN-NEW', { auth: a.readOnly }), 404);
    expectStatus(await rt.http.get(`/admin/customers/${gone.domain}`, { auth: admin }), 200);
    expectStatus(await rt.http.get('/devices/SN-GONE', { auth: gone.full }), 200);
    // The run records survive the restore, the restore's own included.
    const items = expectStatus(await rt.http.get('/admin/backups', { auth: admin, query: { limit: 500 } }), 200).json<{ items: RunBody[] }>().items;
    for (const runId of runIds) expect(items.map((r) => r.id)).toContain(runId);
    expect(items[0].id).toBe(id);
    expectStatus(await rt.http.post('/devices', { auth: a.full, json: { hwid: 'SN-AFTER' } }), 201);
  }, 180_000);
});
