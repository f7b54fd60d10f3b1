import type { ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectStatus } from '../support/auth.js';
import { expectProblem } from '../support/problems.js';
import { eventually } from '../support/factories.js';
import { HttpClient, type HttpReply } from '../support/http.js';
import { startRuntime, type CustomerFixture, type Runtime } from '../support/runtime.js';
import { freePort, readStackState, spawnApp, stopPid } from '../support/stack.js';

/**
 * A change of maintenance or the IP blocks is in force for the very next request through the
 * gateway that forwarded it (it enforces the state the admin app's answer carries before it
 * answers), with one gateway and with two; the other gateway follows within 2 s (distributed
 * runtime only: the stack's gateway and a second gateway process on another port). Nothing
 * here sleeps: the next request is sent as soon as the answer is in.
 */

const PROPAGATION_LIMIT_MS = 2_000;
/** Each change is made this often: a gateway that only followed the announcement would lose a race now and then. */
const ROUNDS = 5;

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

/** Polls (every 25 ms) until the probe's reply is accepted; returns the milliseconds since `since`. */
async function msUntil(probe: () => Promise<HttpReply>, accept: (r: HttpReply) => boolean, since: number): Promise<number> {
  const reply = await eventually(probe, accept, { timeoutMs: PROPAGATION_LIMIT_MS * 3, intervalMs: 25 });
  if (!accept(reply)) throw new Error(`not within ${PROPAGATION_LIMIT_MS * 3} ms: ${reply.describe()}`);
  return Date.now() - since;
}

describe('a protection change is in force at once on the gateway that forwarded it (distributed)', () => {
  let rt: Runtime;
  let admin: string;
  let c: CustomerFixture;
  let second: ChildProcess | undefined;
  let first: HttpClient;
  let other: HttpClient;

  const setMaintenance = (http: HttpClient, body: Record<string, unknown>) => http.put('/admin/settings/maintenance', { auth: admin, json: body });
  const write = (http: HttpClient) => http.post('/devices', { auth: c.full, json: { hwid: `a-${randomInt(1e9)}` } });
  const ownAddress = () => `127.0.0.${20 + randomInt(230)}`;

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    c = await rt.newCustomer();
    first = rt.http;
    const state = readStackState(stateDir());
    const port = await freePort();
    second = spawnApp('gateway', { ...state.appEnv, PORT: String(port) }, state.logDir);
    other = new HttpClient(`http://127.0.0.1:${port}`);
    const up = await eventually(
      () => other.get('/status').catch(() => null),
      (r) => r?.status === 200,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    if (up?.status !== 200) throw new Error('the second gateway did not start');
  });
  afterAll(async () => {
    await rt?.http.put('/admin/settings/maintenance', { auth: admin, json: { enabled: false } });
    if (second?.pid) await stopPid(second.pid);
    await rt?.stop();
  });

  describe('one gateway', () => {
    it('maintenance on and off: the next write through it sees each change', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const message = `at once ${round} ${randomInt(1e6)}`;
        expectStatus(await setMaintenance(first, { enabled: true, message }), 200);
        const refused = await write(first);
        expectProblem(refused, 503, message);
        expect(refused.header('retry-after')).toBe('300');
        expect(expectStatus(await first.get('/status'), 200).json<{ maintenance: unknown }>().maintenance).toEqual({ enabled: true, message });
        expectStatus(await setMaintenance(first, { enabled: false }), 200);
        expectStatus(await write(first), 201);
      }
    });

    it('an address blocked and unblocked: its next request through it sees each change', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const from = { localAddress: ownAddress() };
        expectStatus(await first.post('/admin/ip-blocks', { auth: admin, json: { cidr: from.localAddress, reason: `at once ${round}` } }), 201);
        expectProblem(await first.get('/status', from), 403, 'address blocked');
        expectStatus(await first.delete('/admin/ip-blocks', { auth: admin, query: { cidr: from.localAddress } }), 204);
        expectStatus(await first.get('/status', from), 200);
      }
    });
  });

  describe('two gateways', () => {
    it('maintenance changed through either: at once through that one, within 2 s through the other', async () => {
      const figures: number[] = [];
      for (const [through, elsewhere] of [
        [other, first],
        [first, other],
      ] as const) {
        for (let round = 0; round < ROUNDS; round++) {
          const message = `two gateways ${round} ${randomInt(1e6)}`;
          const onAt = Date.now();
          expectStatus(await setMaintenance(through, { enabled: true, message }), 200);
          expectProblem(await write(through), 503, message);
          figures.push(
            await msUntil(
              () => write(elsewhere),
              (r) => r.status === 503,
              onAt,
            ),
          );
          const offAt = Date.now();
          expectStatus(await setMaintenance(through, { enabled: false }), 200);
          expectStatus(await write(through), 201);
          figures.push(
            await msUntil(
              () => write(elsewhere),
              (r) => r.status === 201,
              offAt,
            ),
          );
        }
      }
      console.log(`maintenance on the other gateway after ms: ${figures.join(' ')}`);
      expect(Math.max(...figures)).toBeLessThanOrEqual(PROPAGATION_LIMIT_MS);
    });

    it('an address blocked and unblocked through either: at once through that one, within 2 s through the other', async () => {
      const figures: number[] = [];
      for (const [through, elsewhere] of [
        [other, first],
        [first, other],
      ] as const) {
        for (let round = 0; round < ROUNDS; round++) {
          const from = { localAddress: ownAddress() };
          const blockedAt = Date.now();
          expectStatus(await through.post('/admin/ip-blocks', { auth: admin, json: { cidr: from.localAddress, reason: `two gateways ${round}` } }), 201);
          expectProblem(await through.get('/status', from), 403, 'address blocked');
          figures.push(
            await msUntil(
              () => elsewhere.get('/status', from),
              (r) => r.status === 403,
              blockedAt,
            ),
          );
          const removedAt = Date.now();
          expectStatus(await through.delete('/admin/ip-blocks', { auth: admin, query: { cidr: from.localAddress } }), 204);
          expectStatus(await through.get('/status', from), 200);
          figures.push(
            await msUntil(
              () => elsewhere.get('/status', from),
              (r) => r.status === 200,
              removedAt,
            ),
          );
        }
      }
      console.log(`IP blocks on the other gateway after ms: ${figures.join(' ')}`);
      expect(Math.max(...figures)).toBeLessThanOrEqual(PROPAGATION_LIMIT_MS);
    });
  });
});
