import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configureLogging, generateBackupKeyPair } from '@app/infra';
import { expectStatus } from '../support/auth.js';
import { expectProblem } from '../support/problems.js';
import { sleep } from '../support/factories.js';
import { multipart } from '../support/firmware.js';
import { HttpClient, type IdentityBody, Session } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { freePort } from '../support/stack.js';

/**
 * Backups on `npm start` as it comes (docs/operations.md "Backups and restores"): a clean
 * DATA_DIR and no setting but OPERATOR_ADMIN_EMAIL. The README's steps (login, token, customer,
 * build, device, update check), then a backup, a verify and a restore through the API with no
 * key sent: the service made its own key pair (0600, beside the other generated secrets), says
 * where at start-up, and keeps it across restarts.
 */

interface LogLine {
  readonly level: string;
  readonly app: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

interface RunBody {
  id: string;
  kind: string;
  status: string;
  archive_name: string | null;
  error: string | null;
  log: string;
}

const ADMIN = 'you@example.com';
const KEY_LINE = 'backups are encrypted to the key pair this service generated: keep a copy of its secret key off this machine';

describe('backups on defaults (standalone, clean DATA_DIR, no backup setting)', () => {
  let root: string;
  let dataDir: string;
  let port: number;
  let service: { close(): Promise<void> } | null = null;
  let http: HttpClient;
  let token: string;
  let archiveName: string;
  const lines: LogLine[] = [];

  /** `npm start` with OPERATOR_ADMIN_EMAIL only (DATA_DIR and PORT keep the test apart from others). */
  const start = async () => {
    const { startStandalone } = await import('../../../apps/standalone/src/standalone.js');
    service = await startStandalone({ DATA_DIR: dataDir, PORT: String(port), OPERATOR_ADMIN_EMAIL: ADMIN }, { port });
  };
  const stop = async () => {
    await service?.close();
    service = null;
  };
  const finished = async (reply: { status: number; json<T>(): T }, kind: string): Promise<RunBody> => {
    expect(reply.status).toBe(202);
    const { id } = reply.json<{ id: string; kind: string }>();
    for (const deadline = Date.now() + 90_000; ; await sleep(100)) {
      const run = expectStatus(await http.get(`/admin/backups/${id}`, { auth: token }), 200).json<RunBody>();
      expect(run.kind).toBe(kind);
      if (run.status === 'succeeded' || run.status === 'failed') return run;
      if (Date.now() > deadline) throw new Error(`run ${id} still ${run.status}: ${run.log}`);
    }
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'fds-e2e-backup-defaults-'));
    dataDir = join(root, 'data'); // not even created yet
    port = await freePort();
    configureLogging({ level: 'info', sink: (line) => lines.push(JSON.parse(line) as LogLine) });
    await start();
    http = new HttpClient(`http://localhost:${port}`);
  }, 180_000);
  afterAll(async () => {
    await stop();
    await rm(root, { recursive: true, force: true });
  });

  it('made one key pair beside the download-link key, owner-only, and said where its secret half lies', async () => {
    const file = join(dataDir, 'backup-secret.key');
    expect((await readdir(dataDir)).filter((name) => name.endsWith('.key')).sort()).toEqual(['backup-secret.key', 'download-link.key']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    const secretKey = /^AGE-SECRET-KEY-1\S+$/m.exec(text)![0];
    const said = lines.filter((line) => line.msg === KEY_LINE);
    expect(said).toEqual([
      expect.objectContaining({ level: 'warn', app: 'standalone', secret_key_file: file, created: true, public_key: expect.stringMatching(/^age1/) }),
    ]);
    // The path is logged, never the key.
    expect(lines.some((line) => JSON.stringify(line).includes(secretKey))).toBe(false);
    expect(lines.some((line) => line.msg.startsWith('backups are not configured'))).toBe(false);
  });

  it("follows the README's first steps: a login code from the outbox, a session, an admin token", async () => {
    const since = Date.now();
    expectStatus(await http.post('/auth/login', { json: { email: ADMIN } }), 202);
    const code = await new Mailbox(dataDir).waitForCode(ADMIN, { since });
    const verified = expectStatus(await http.post('/auth/verify', { json: { email: ADMIN, code } }), 200);
    const identity = verified.json<IdentityBody>();
    const session = new Session(ADMIN, identity.csrf_token, identity);
    session.absorb(verified.setCookies);
    token = expectStatus(await http.post('/tokens', { auth: session, json: { name: 'my laptop', bundle: 'admin' } }), 201).json<{ token: string }>().token;

    expectStatus(await http.post('/admin/customers', { auth: token, json: { domain: 'acme.example', name: 'Acme', owner_email: 'owner@acme.example' } }), 201);
    const { body, contentType } = multipart([
      { name: 'firmware', data: Buffer.from('boot code\0@(#)1.5.0, 2026-11-20, AFI\0more code\n', 'latin1'), filename: 'build.bin' },
    ]);
    expectStatus(
      await http.put('/firmware/board-x/rev2/main', {
        auth: token,
        query: { customer: 'acme.example', general_release: 'true' },
        body,
        headers: { 'content-type': contentType },
      }),
      200,
    );
    expectStatus(await http.post('/devices', { auth: token, query: { customer: 'acme.example' }, json: { hwid: 'SN-0001', tags: ['beta'] } }), 201);
    const offered = expectStatus(await http.get('/firmware/acme.example/board-x/rev2/main/1.4.2/SN-0001'), 200).json<{ fw_version: string }[]>();
    expect(offered.map((b) => b.fw_version)).toEqual(['1.5.0']);
  });

  it('backs up, verifies and restores with no key sent, the service reading its own secret half', async () => {
    const listed = expectStatus(await http.get('/admin/backups', { auth: token }), 200).json<{ backend: string; key: Record<string, unknown> }>();
    expect(listed).toMatchObject({
      backend: 'local',
      key: { source: 'generated', public_key: expect.stringMatching(/^age1/), secret_key_file: join(dataDir, 'backup-secret.key') },
    });

    const backup = await finished(await http.post('/admin/backups', { auth: token }), 'backup');
    expect(backup).toMatchObject({ status: 'succeeded', error: null });
    archiveName = backup.archive_name!;

    const verified = await finished(await http.post('/admin/backups/verify', { auth: token, json: {} }), 'verify');
    expect(verified).toMatchObject({ status: 'succeeded', archive_name: archiveName, error: null });
    expect(verified.log).toContain("with the service's generated key");
    // A key sent still wins: another pair's key does not open the archive.
    const other = await generateBackupKeyPair();
    const wrong = await finished(
      await http.post('/admin/backups/verify', {
        auth: token,
        json: { archive_name: archiveName, backup_key_b64: Buffer.from(other.secretKey).toString('base64') },
      }),
      'verify',
    );
    expect(wrong).toMatchObject({ status: 'failed', error: expect.stringMatching(/^wrong_key: /) });

    // A change after the backup, then the restore takes it away.
    expectStatus(await http.post('/devices', { auth: token, query: { customer: 'acme.example' }, json: { hwid: 'SN-0002' } }), 201);
    expectProblem(
      await http.post('/admin/restores', { auth: token, json: { archive_name: archiveName, confirm: 'restore' } }),
      400,
      `confirm must be exactly "restore ${archiveName}"`,
    );
    const restored = await finished(
      await http.post('/admin/restores', { auth: token, json: { archive_name: archiveName, confirm: `restore ${archiveName}` } }),
      'restore',
    );
    expect(restored).toMatchObject({ status: 'succeeded', error: null });
    expect(restored.log).toContain("with the service's generated key");
    expectStatus(await http.get('/devices/SN-0002', { auth: token, query: { customer: 'acme.example' } }), 404);
    expectStatus(await http.get('/devices/SN-0001', { auth: token, query: { customer: 'acme.example' } }), 200);
  });

  it('keeps the key pair across a restart: the same key, and the earlier archive still verifies with no key sent', async () => {
    const before = await readFile(join(dataDir, 'backup-secret.key'), 'utf8');
    const publicKey = lines.find((line) => line.msg === KEY_LINE)!.public_key;
    await stop();
    lines.length = 0;
    await start();
    expect(await readFile(join(dataDir, 'backup-secret.key'), 'utf8')).toBe(before);
    expect(lines.filter((line) => line.msg === KEY_LINE)).toEqual([
      expect.objectContaining({ level: 'info', created: false, public_key: publicKey, secret_key_file: join(dataDir, 'backup-secret.key') }),
    ]);
    const verified = await finished(await http.post('/admin/backups/verify', { auth: token, json: { archive_name: archiveName } }), 'verify');
    expect(verified).toMatchObject({ status: 'succeeded', error: null });
  }, 180_000);
});
