import type { ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectStatus } from '../support/auth.js';
import { expectProblem } from '../support/problems.js';
import { eventually } from '../support/factories.js';
import { HttpClient, type HttpReply } from '../support/http.js';
import { startRuntime, waitForStatus, type CustomerFixture, type Runtime } from '../support/runtime.js';
import { freePort, isAlive, readStackState, spawnApp, stopPid, writeStackState } from '../support/stack.js';

/**
 * Maintenance mode and IP blocks reach every gateway replica within 2 s (distributed runtime
 * only): a second gateway process, same environment on another port, beside the stack's own.
 */

const PROPAGATION_LIMIT_MS = 2_000;

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

/** Milliseconds until every probe's reply is accepted (polled every 25 ms); fails past `limitMs` * 3. */
async function timeUntilAll(
  probes: ReadonlyArray<() => Promise<HttpReply>>,
  accept: (r: HttpReply) => boolean,
  since: number,
  limitMs: number,
): Promise<number> {
  const reached = await Promise.all(
    probes.map(async (probe) => {
      const reply = await eventually(probe, accept, { timeoutMs: limitMs * 3, intervalMs: 25 });
      if (!accept(reply)) throw new Error(`not within ${limitMs * 3} ms: ${reply.describe()}`);
      return Date.now();
    }),
  );
  return Math.max(...reached) - since;
}

describe('maintenance mode and IP blocks on two gateway replicas (distributed)', () => {
  let rt: Runtime;
  let admin: string;
  let c: CustomerFixture;
  let second: ChildProcess;
  let gateways: HttpClient[];

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    c = await rt.newCustomer();
    const state = readStackState(stateDir());
    const port = await freePort();
    second = spawnApp('gateway', { ...state.appEnv, PORT: String(port) }, state.logDir);
    const secondHttp = new HttpClient(`http://127.0.0.1:${port}`);
    const up = await eventually(
      () => secondHttp.get('/status').catch(() => null),
      (r) => r?.status === 200,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    if (up?.status !== 200) throw new Error('the second gateway did not start');
    gateways = [rt.http, secondHttp];
  });
  afterAll(async () => {
    // Whatever happened below, leave a complete stack behind.
    const state = readStackState(stateDir());
    if (!state.pids.admin || !isAlive(state.pids.admin)) {
      const child = spawnApp('admin', state.appEnv, state.logDir);
      child.unref(); // the global teardown stops it by pid
      state.pids.admin = child.pid!;
      writeStackState(stateDir(), state);
      await waitForStatus(rt.baseUrl, 'ok', 60_000).catch(() => undefined);
    }
    await rt?.http.put('/admin/settings/maintenance', { auth: admin, json: { enabled: false } });
    if (second?.pid) await stopPid(second.pid);
    await rt?.stop();
  });

  it('a block is in force on both replicas within 2 s, and so is its removal', async () => {
    const address = `127.0.0.${20 + randomInt(230)}`;
    const from = { localAddress: address };
    for (const http of gateways) expectStatus(await http.get('/status', from), 200);

    const blockedAt = Date.now();
    expectStatus(await rt.http.post('/admin/ip-blocks', { auth: admin, json: { cidr: address, reason: 'replicas' } }), 201);
    const blockMs = await timeUntilAll(
      gateways.map((http) => () => http.get('/status', from)),
      (r) => r.status === 403,
      blockedAt,
      PROPAGATION_LIMIT_MS,
    );
    for (const http of gateways) expectProblem(await http.get('/auth/me', from), 403, 'address blocked');

    const removedAt = Date.now();
    expectStatus(await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr: address } }), 204);
    const removeMs = await timeUntilAll(
      gateways.map((http) => () => http.get('/status', from)),
      (r) => r.status === 200,
      removedAt,
      PROPAGATION_LIMIT_MS,
    );
    expect(blockMs).toBeLessThanOrEqual(PROPAGATION_LIMIT_MS);
    expect(removeMs).toBeLessThanOrEqual(PROPAGATION_LIMIT_MS);
  });

  it('maintenance mode is in force on both replicas within 2 s, and so is its end', async () => {
    const write = (http: HttpClient) => () => http.post('/devices', { auth: c.full, json: { hwid: `r-${randomInt(1e9)}` } });
    const message = `replicas ${randomInt(1e6)}`;
    const onAt = Date.now();
    expectStatus(await rt.http.put('/admin/settings/maintenance', { auth: admin, json: { enabled: true, message } }), 200);
    try {
      const onMs = await timeUntilAll(gateways.map(write), (r) => r.status === 503, onAt, PROPAGATION_LIMIT_MS);
      for (const http of gateways) {
        const reply = await write(http)();
        expectProblem(reply, 503, message);
        expect(reply.header('retry-after')).toBe('300');
        expect(expectStatus(await http.get('/status'), 200).json<{ maintenance: unknown }>().maintenance).toEqual({ enabled: true, message });
      }
      expect(onMs).toBeLessThanOrEqual(PROPAGATION_LIMIT_MS);
    } finally {
      const offAt = Date.now();
      expectStatus(await rt.http.put('/admin/settings/maintenance', { auth: admin, json: { enabled: false } }), 200);
      const offMs = await timeUntilAll(gateways.map(write), (r) => r.status === 201, offAt, PROPAGATION_LIMIT_MS);
      expect(offMs).toBeLessThanOrEqual(PROPAGATION_LIMIT_MS);
    }
  });

  it('a change whose announcement is lost reaches both replicas by the periodic re-read', async () => {
    const address = `127.0.0.${20 + randomInt(230)}`;
    const from = { localAddress: address };
    // Written behind the admin app's back: no ProtectionEvents.changed is sent.
    const changedAt = Date.now();
    await rt.query(`INSERT INTO admin.ip_blocks (cidr, reason, created_by, created_at) VALUES ($1, 'no event', 'e2e', now())`, [`${address}/32`]);
    await rt.query(`UPDATE admin.maintenance_setting SET revision = revision + 1`);
    try {
      const ms = await timeUntilAll(
        gateways.map((http) => () => http.get('/status', from)),
        (r) => r.status === 403,
        changedAt,
        PROPAGATION_LIMIT_MS,
      );
      expect(ms).toBeLessThanOrEqual(PROPAGATION_LIMIT_MS);
    } finally {
      expectStatus(await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr: address } }), 204);
    }
  });

  it('with the admin app down, both replicas keep enforcing the last known blocks and maintenance', async () => {
    const address = `127.0.0.${20 + randomInt(230)}`;
    const from = { localAddress: address };
    expectStatus(await rt.http.post('/admin/ip-blocks', { auth: admin, json: { cidr: address, reason: 'outage' } }), 201);
    expectStatus(await rt.http.put('/admin/settings/maintenance', { auth: admin, json: { enabled: true, message: 'outage' } }), 200);
    const write = (http: HttpClient) => () => http.post('/devices', { auth: c.full, json: { hwid: `o-${randomInt(1e9)}` } });
    await timeUntilAll(
      gateways.map((http) => () => http.get('/status', from)),
      (r) => r.status === 403,
      Date.now(),
      PROPAGATION_LIMIT_MS,
    );
    await timeUntilAll(gateways.map(write), (r) => r.status === 503, Date.now(), PROPAGATION_LIMIT_MS);

    const state = readStackState(stateDir());
    await stopPid(state.pids.admin!);
    expect(isAlive(state.pids.admin!)).toBe(false);
    // Several re-reads fail meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    for (const http of gateways) {
      expectProblem(await http.get('/status', from), 403, 'address blocked');
      expectProblem(await write(http)(), 503, 'outage');
      expectStatus(await http.get('/devices', { auth: c.full }), 200);
    }

    const child = spawnApp('admin', state.appEnv, state.logDir);
    child.unref();
    state.pids.admin = child.pid!;
    writeStackState(stateDir(), state);
    await waitForStatus(rt.baseUrl, 'ok', 60_000);
    expectStatus(await rt.http.put('/admin/settings/maintenance', { auth: admin, json: { enabled: false } }), 200);
    expectStatus(await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr: address } }), 204);
    await timeUntilAll(
      gateways.map((http) => () => http.get('/status', from)),
      (r) => r.status === 200,
      Date.now(),
      PROPAGATION_LIMIT_MS,
    );
  });
});
