import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DownloadLinkSigner } from '../../../libs/infra/src/downloads/download-links.js';
import { eventually, letters, randomContent, randomLogName } from '../support/factories.js';
import { createBuild, createDevice, productLine } from '../support/firmware.js';
import { startRuntime, waitForStatus, type Runtime } from '../support/runtime.js';
import { isAlive, readStackState, spawnApp, writeStackState } from '../support/stack.js';

/**
 * Deleting a customer while an app is down (distributed runtime only; docs/api.md "Deleting a
 * customer"): the deletion is recorded and answers 202, the customer is gone for every caller at
 * once, and identity finishes it by itself once the app is back (no second request), also when
 * the identity process that started it was killed meanwhile. The apps are started again before
 * the file ends, so the files after this one find the whole stack.
 */

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

function startApp(app: 'logdata' | 'identity'): void {
  const state = readStackState(stateDir());
  const child = spawnApp(app, state.appEnv, state.logDir);
  child.unref(); // the global teardown stops it by pid
  state.pids[app] = child.pid!;
  writeStackState(stateDir(), state);
}

async function killApp(app: 'logdata' | 'identity'): Promise<void> {
  const pid = readStackState(stateDir()).pids[app]!;
  process.kill(pid, 'SIGKILL');
  await eventually(
    async () => isAlive(pid),
    (alive) => !alive,
    { timeoutMs: 10_000, intervalMs: 50 },
  );
  expect(isAlive(pid)).toBe(false);
}

describe('deleting a customer while an app is down (distributed)', () => {
  let rt: Runtime;
  let admin: string;

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
  });

  afterAll(async () => {
    for (const app of ['logdata', 'identity'] as const) {
      const pid = readStackState(stateDir()).pids[app];
      if (!pid || !isAlive(pid)) startApp(app);
    }
    await waitForStatus(rt.baseUrl, 'ok', 60_000).catch(() => undefined);
    await rt?.stop();
  });

  it('answers 202 while logdata is down, hides the customer at once, and finishes once logdata is back, also after identity was killed meanwhile', async () => {
    const customer = await rt.newCustomer();
    await createBuild(rt, customer.full, productLine(), '1.0.0', { notes: 'notes' });
    await createDevice(rt, customer.full, `dev-${letters(8)}`, ['beta']);
    for (const size of [300, 400]) {
      expect((await rt.http.put(`/logdata/${randomLogName()}`, { auth: customer.uploader, body: randomContent(size) })).status).toBe(200);
    }
    const [{ id }] = await rt.query<{ id: string }>(`SELECT id FROM identity.customers WHERE domain = $1`, [customer.domain]);
    const logFiles = await rt.query<{ key: string; size: number; sha256: string }>(
      `SELECT object_key AS key, size_bytes::int AS size, sha256 FROM logdata.log_file WHERE customer_id = $1`,
      [id],
    );
    expect(logFiles).toHaveLength(2);
    const signer = new DownloadLinkSigner(rt.downloadSecret);
    const links = logFiles.map(
      (f) =>
        `${rt.baseUrl}/dl/${signer.sign({ key: f.key, sizeBytes: f.size, sha256: f.sha256, contentType: 'application/octet-stream', lastModified: new Date().toISOString() } as never)}`,
    );
    for (const link of links) expect((await rt.http.follow(link)).reply.status).toBe(200);
    const count = async (table: string): Promise<number> =>
      Number(
        (await rt.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${table === 'identity.customers' ? 'id' : 'customer_id'} = $1`, [id]))[0]
          .n,
      );

    await killApp('logdata');

    const reply = await rt.http.delete(`/admin/customers/${customer.domain}`, { auth: admin, query: { confirm: customer.domain } });
    expect(reply.status).toBe(202);
    expect(reply.body.length).toBe(0);
    // Gone for every caller at once, although not finished.
    expect((await rt.http.get('/firmware', { auth: customer.full })).status).toBe(401);
    expect((await rt.http.get('/devices', { auth: admin, query: { customer: customer.domain } })).status).toBe(404);
    expect((await rt.http.get(`/admin/customers/${customer.domain}`, { auth: admin })).status).toBe(404);
    const listed = (await rt.http.get('/admin/customers', { auth: admin })).json<{ items: { domain: string }[] }>().items;
    expect(listed.map((c) => c.domain)).not.toContain(customer.domain);
    // The record of the deletion waits; the apps that answered have erased their part.
    expect((await rt.query<{ status: string }>(`SELECT status FROM identity.customers WHERE id = $1`, [id]))[0].status).toBe('deleting');
    expect(await count('firmware.build')).toBe(0);
    expect(await count('registry.device')).toBe(0);
    expect(await count('logdata.log_file')).toBe(2);
    // The domain is still taken until the deletion is finished.
    expect((await rt.http.post('/admin/customers', { auth: admin, json: { domain: customer.domain } })).status).toBe(409);

    // The identity process that did the deletion dies (SIGKILL: nothing in memory survives);
    // a new one resumes the recorded deletion by itself once logdata is back: no second request.
    await killApp('identity');
    startApp('logdata');
    startApp('identity');
    await waitForStatus(rt.baseUrl, 'ok', 60_000);
    const left = await eventually(
      async () => (await count('identity.customers')) + (await count('logdata.log_file')),
      (n) => n === 0,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(left).toBe(0);
    for (const link of links) expect((await rt.http.follow(link)).reply.status).toBe(404);
    expect((await rt.http.post('/admin/customers', { auth: admin, json: { domain: customer.domain } })).status).toBe(201);
    const page = await rt.http.get('/logdata', { auth: admin, query: { customer: customer.domain } });
    expect(page.status).toBe(200);
    expect(page.json<{ items: unknown[] }>().items).toEqual([]);
  });
});
