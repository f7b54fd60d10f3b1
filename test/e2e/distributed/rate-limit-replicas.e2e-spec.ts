import type { ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '../support/factories.js';
import { productLine, updateCheckPath } from '../support/firmware.js';
import { HttpClient } from '../support/http.js';
import { freePort, readStackState, sleep, spawnApp, stopPid } from '../support/stack.js';

/**
 * The per-address update-check limit holds across gateway replicas (distributed runtime only;
 * docs/operations.md "Rate limits across gateways"): two gateways of the stack's environment
 * on Redis, with a limit of 10 a minute. What one admitted counts at the other within about a
 * second, so the second refuses the address long before its own count reaches the limit
 * (counted per process, it would admit 10 more).
 */

const LIMIT = 10;

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

describe('the update-check limit on two gateway replicas (distributed)', () => {
  const children: ChildProcess[] = [];
  let gateways: HttpClient[];

  beforeAll(async () => {
    const state = readStackState(stateDir());
    gateways = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      children.push(spawnApp('gateway', { ...state.appEnv, PORT: String(port), UPDATE_CHECK_RATE_PER_MINUTE: String(LIMIT) }, state.logDir));
      gateways.push(new HttpClient(`http://127.0.0.1:${port}`));
    }
    for (const http of gateways) {
      const up = await eventually(
        () => http.get('/status').catch(() => null),
        (r) => r?.status === 200,
        { timeoutMs: 90_000, intervalMs: 200 },
      );
      if (up?.status !== 200) throw new Error('a gateway did not start');
    }
  });
  afterAll(async () => {
    for (const child of children) if (child.pid) await stopPid(child.pid);
  });

  it('a replica refuses an address once the other admitted the limit, before its own count reaches it', async () => {
    // The windows are clock minutes: start with time to spare in this one.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 20_000) await sleep(left + 100);
    const from = { localAddress: `127.0.0.${20 + randomInt(230)}` };
    const path = updateCheckPath('nobody.example', productLine(), '1.0');
    const [first, second] = gateways;
    for (let i = 0; i < LIMIT; i++) expect((await first.get(path, from)).status).not.toBe(429);

    let admitted = 0;
    const refused = await eventually(
      async () => {
        const reply = await second.get(path, from);
        if (reply.status !== 429) admitted++;
        return reply;
      },
      (reply) => reply.status === 429,
      { timeoutMs: 5_000, intervalMs: 250 },
    );
    expect(refused.status).toBe(429);
    expect(refused.header('retry-after')).toMatch(/^\d+$/);
    expect(admitted).toBeLessThan(LIMIT);
  });
});
