import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, letters } from '../support/factories.js';
import { startRuntime, waitForStatus, type CustomerFixture, type Runtime } from '../support/runtime.js';
import { isAlive, readStackState, sleep, spawnApp, startNats, writeStackState } from '../support/stack.js';

/**
 * Nothing lost (distributed runtime only: it kills a process). A stream of audited changes
 * (devices created through the registry, whose audit entry commits in the device's own
 * transaction, and tokens through identity) runs while the admin app is killed with SIGKILL
 * and, a few seconds later, started again. Afterwards every change has exactly one audit
 * entry (the outboxes relayed them at least once, the admin app stored each id once) and
 * every request its request-log entry (the gateway held the unacknowledged batches). Then the
 * same with the run's nats-server killed and started again on its port.
 */

/** Changes before the kill, and at least as many after the restart; the stream never pauses in between. */
const BEFORE = 50;
const AFTER = 50;
const MIN_CHANGES = 150;
const CONCURRENCY = 4;
const DOWN_MS = 3_000;

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

function startAdmin(): void {
  const state = readStackState(stateDir());
  const child = spawnApp('admin', state.appEnv, state.logDir);
  child.unref(); // the global teardown stops it by pid
  state.pids.admin = child.pid!;
  writeStackState(stateDir(), state);
}

async function killAdmin(): Promise<void> {
  const pid = readStackState(stateDir()).pids.admin!;
  expect(isAlive(pid)).toBe(true);
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(10);
}

/** The run's nats-server killed (SIGKILL) and started again on the same port and store after `downMs`. */
async function restartNats(downMs: number): Promise<void> {
  const state = readStackState(stateDir());
  if (!state.nats) throw new Error('this run uses a shared NATS server (E2E_NATS_URL or no nats-server installed): cannot restart it');
  process.kill(state.nats.pid, 'SIGKILL');
  while (isAlive(state.nats.pid)) await sleep(10);
  await sleep(downMs);
  const started = await startNats(state.nats.dir, state.nats.logFile, state.nats.port);
  started.process!.unref(); // the global teardown stops it by pid
  state.nats = { ...state.nats, pid: started.process!.pid! };
  writeStackState(stateDir(), state);
}

describe('nothing lost when the admin app is killed (distributed)', () => {
  let rt: Runtime;
  let customer: CustomerFixture;

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await rt.newCustomer();
  });

  afterAll(async () => {
    const pid = readStackState(stateDir()).pids.admin;
    if (!pid || !isAlive(pid)) startAdmin();
    await waitForStatus(rt.baseUrl, 'ok', 60_000).catch(() => undefined);
    await rt?.stop();
  });

  it(`at least ${MIN_CHANGES} audited changes, the admin app killed (kill -9) in their midst: every audit entry and request-log entry is found, once`, async () => {
    const marker = `nl${letters(10)}`;
    const requestIds: string[] = [];
    const statuses: number[] = [];
    let next = 0;
    let doneCount = 0;
    let stopAt = Number.MAX_SAFE_INTEGER;
    const kinds = { device: 0, token: 0 };

    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= stopAt) return;
        const requestId = `${marker}-${i}`;
        requestIds.push(requestId);
        const headers = { 'X-Request-Id': requestId };
        const reply =
          i % 6 === 5
            ? await rt.http.post('/tokens', { auth: customer.owner, headers, json: { name: `${marker}-${i}`, bundle: 'read-only' } })
            : await rt.http.post('/devices', { auth: customer.full, headers, json: { hwid: `${marker}-${i}` } });
        kinds[i % 6 === 5 ? 'token' : 'device']++;
        statuses.push(reply.status);
        doneCount++;
      }
    };
    const stream = Promise.all(Array.from({ length: CONCURRENCY }, worker));

    while (doneCount < BEFORE) await sleep(5);
    const killedAt = doneCount;
    await killAdmin();
    await sleep(DOWN_MS); // the stream goes on while the admin app is down
    const restartedAt = doneCount;
    startAdmin();
    stopAt = Math.max(MIN_CHANGES, next + AFTER);
    await stream;
    const CHANGES = stopAt;
    expect(statuses).toHaveLength(CHANGES);
    expect(statuses.filter((s) => s !== 201)).toEqual([]); // the admin app is not on the path of a change
    expect(restartedAt).toBeGreaterThan(killedAt); // changes were made while it was down

    const audits = await eventually(
      () =>
        rt.query<{ entries: number; ids: number; targets: number }>(
          `SELECT count(*)::int AS entries, count(DISTINCT event_id)::int AS ids, count(DISTINCT target_id)::int AS targets
             FROM admin.audit_log
            WHERE domain = $1 AND ((action = 'device.create' AND target_id LIKE $2) OR (action = 'token.create' AND after->>'name' LIKE $2))`,
          [customer.domain, `${marker}-%`],
        ),
      ([row]) => row.entries >= CHANGES,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const requestLog = await eventually(
      () =>
        rt.query<{ entries: number; ids: number }>(
          `SELECT count(*)::int AS entries, count(DISTINCT request_id)::int AS ids FROM admin.request_log WHERE request_id = ANY($1)`,
          [requestIds],
        ),
      ([row]) => row.entries >= CHANGES,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    process.stdout.write(
      `nothing lost: ${CHANGES} changes (${kinds.device} devices, ${kinds.token} tokens), admin app killed after ${killedAt} and started again after ${restartedAt}; ` +
        `audit entries found ${audits[0].entries} (distinct ids ${audits[0].ids}), request-log entries found ${requestLog[0].entries} (distinct request ids ${requestLog[0].ids})\n`,
    );
    expect(audits[0]).toEqual({ entries: CHANGES, ids: CHANGES, targets: CHANGES });
    expect(requestLog[0]).toEqual({ entries: CHANGES, ids: CHANGES });
    // The outboxes are empty again once everything was acknowledged.
    const backlog = await eventually(
      () => rt.query<{ n: number }>(`SELECT (SELECT count(*) FROM identity.outbox) + (SELECT count(*) FROM registry.outbox) AS n`),
      ([row]) => Number(row.n) === 0,
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(Number(backlog[0].n)).toBe(0);
  });

  it('a NATS restart amid a stream of audited changes: every committed change has its audit entry once, every request its request-log entry', async () => {
    const marker = `nn${letters(10)}`;
    const requestIds: string[] = [];
    const statuses: number[] = [];
    let stop = false;
    let next = 0;
    let doneCount = 0;
    const worker = async () => {
      while (!stop) {
        const i = next++;
        const requestId = `${marker}-${i}`;
        requestIds.push(requestId);
        const reply = await rt.http.post('/devices', { auth: customer.full, headers: { 'X-Request-Id': requestId }, json: { hwid: `${marker}-${i}` } });
        statuses.push(reply.status);
        doneCount++;
        if (reply.status !== 201) await sleep(50); // NATS is down: do not spin
      }
    };
    const stream = Promise.all(Array.from({ length: CONCURRENCY }, worker));
    while (doneCount < BEFORE) await sleep(5);
    const killedAt = doneCount;
    await restartNats(2_000);
    await waitForStatus(rt.baseUrl, 'ok', 60_000);
    const restartedAt = doneCount;
    while (doneCount < restartedAt + AFTER) await sleep(5);
    stop = true;
    await stream;
    // Requests during the outage fail (503: the gateway cannot reach the apps); a change whose
    // reply was lost may still have been made. Every device that exists must have its entry.
    const refused = statuses.filter((s) => s !== 201);
    expect(refused.every((s) => s === 503)).toBe(true);
    const created = statuses.filter((s) => s === 201).length;

    const devices = await rt.query<{ n: number }>(`SELECT count(*)::int AS n FROM registry.device WHERE hwid LIKE $1`, [`${marker}-%`]);
    const audits = await eventually(
      () =>
        rt.query<{ entries: number; ids: number; targets: number }>(
          `SELECT count(*)::int AS entries, count(DISTINCT event_id)::int AS ids, count(DISTINCT target_id)::int AS targets
             FROM admin.audit_log WHERE domain = $1 AND action = 'device.create' AND target_id LIKE $2`,
          [customer.domain, `${marker}-%`],
        ),
      ([row]) => row.entries >= devices[0].n,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const requestLog = await eventually(
      () =>
        rt.query<{ entries: number; ids: number }>(
          `SELECT count(*)::int AS entries, count(DISTINCT request_id)::int AS ids FROM admin.request_log WHERE request_id = ANY($1)`,
          [requestIds],
        ),
      ([row]) => row.entries >= requestIds.length,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    process.stdout.write(
      `nothing lost (NATS restart): ${requestIds.length} requests (${created} answered 201, ${refused.length} refused during the outage), NATS killed after ${killedAt}, back after ${restartedAt}; ` +
        `devices stored ${devices[0].n}, audit entries found ${audits[0].entries} (distinct ids ${audits[0].ids}), request-log entries found ${requestLog[0].entries} (distinct request ids ${requestLog[0].ids})\n`,
    );
    expect(devices[0].n).toBeGreaterThanOrEqual(created);
    expect(audits[0]).toEqual({ entries: devices[0].n, ids: devices[0].n, targets: devices[0].n });
    expect(requestLog[0]).toEqual({ entries: requestIds.length, ids: requestIds.length });
  });
});
