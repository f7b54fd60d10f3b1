import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '@app/contracts';
import { letters, randomLogName } from '../support/factories.js';
import { type HttpReply, PROBLEM_TYPE } from '../support/http.js';
import { startRuntime, waitForStatus, type CustomerFixture, type Runtime } from '../support/runtime.js';
import { isAlive, readStackState, spawnApp, stopPid, writeStackState } from '../support/stack.js';

/**
 * One app down (distributed runtime only): requests it would answer fail fast with 503 while
 * the rest of the service works and /status says degraded. The app is started again with the
 * same environment before the file ends, so the files after this one find the whole stack.
 */

const FAST_MS = 2_000;

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

function startLogdata(): void {
  const state = readStackState(stateDir());
  const child = spawnApp('logdata', state.appEnv, state.logDir);
  child.unref(); // the global teardown stops it by pid
  state.pids.logdata = child.pid!;
  writeStackState(stateDir(), state);
}

describe('an app process down (distributed)', () => {
  let rt: Runtime;
  let customer: CustomerFixture;
  const name = randomLogName();

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await rt.newCustomer();
    // logdata answers before the outage (404: the name is unused).
    expect((await rt.http.get(`/logdata/${name}`, { auth: customer.readOnly })).status).toBe(404);
    const pid = readStackState(stateDir()).pids.logdata!;
    expect(isAlive(pid)).toBe(true);
    await stopPid(pid);
    expect(isAlive(pid)).toBe(false);
  });

  afterAll(async () => {
    // Whatever happened above, leave a complete stack behind.
    const pid = readStackState(stateDir()).pids.logdata;
    if (!pid || !isAlive(pid)) startLogdata();
    await waitForStatus(rt.baseUrl, 'ok', 60_000).catch(() => undefined);
    await rt?.stop();
  });

  const fast = (reply: HttpReply) => expect(reply.elapsedMs).toBeLessThan(FAST_MS);

  it('a log file GET answers 503 within 2 s as a text line', async () => {
    const reply = await rt.http.get(`/logdata/${name}`, { auth: customer.readOnly });
    fast(reply);
    expect(reply.status).toBe(503);
    expect(reply.contentType).toMatch(/^text\/plain\b/);
    expect(reply.text.trimEnd()).toBe('503 Service Unavailable: logdata unavailable');
    // No time of its own: clients back off for the documented default.
    expect(reply.header('retry-after')).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  });

  it('answers 503 problem+json within 2 s with Accept: application/json and on JSON endpoints', async () => {
    const requestId = `e2e-${letters(12)}`;
    const json = await rt.http.get(`/logdata/${name}`, { auth: customer.readOnly, acceptJson: true, headers: { 'X-Request-Id': requestId } });
    fast(json);
    expect(json.status).toBe(503);
    expect(json.json()).toEqual({
      type: expect.stringMatching(PROBLEM_TYPE),
      title: 'Service Unavailable',
      status: 503,
      detail: 'logdata unavailable',
      instance: `/logdata/${name}`,
      request_id: requestId,
      code: 'app_unavailable',
    });
    const list = await rt.http.get('/logdata', { auth: customer.readOnly });
    fast(list);
    expect(list.status).toBe(503);
    expect(list.json().detail).toBe('logdata unavailable');
  });

  it('an upload answers 503 within 2 s', async () => {
    const reply = await rt.http.put(`/logdata/${randomLogName()}`, { auth: customer.uploader, body: Buffer.alloc(1000, 7) });
    fast(reply);
    expect(reply.status).toBe(503);
    expect(reply.text.trimEnd()).toBe('503 Service Unavailable: logdata unavailable');
  });

  it('the other endpoints still work', async () => {
    expect((await rt.http.get('/healthz')).status).toBe(200);
    const me = await rt.http.get('/auth/me', { auth: customer.full });
    expect(me.status).toBe(200);
    expect(me.json().customer).toBe(customer.domain);
    expect((await rt.http.post('/tokens', { auth: customer.owner, json: { name: `during outage ${letters(4)}`, bundle: 'read-only' } })).status).toBe(201);
    expect((await rt.http.get('/.well-known/jwks.json')).status).toBe(200);
  });

  it('/status answers 200 degraded with logdata down; /readyz stays ready', async () => {
    const status = await rt.http.get('/status');
    expect(status.status).toBe(200);
    const body = status.json();
    expect(body.status).toBe('degraded');
    expect(body.apps.logdata).toBe('down');
    for (const app of ['identity', 'admin', 'registry', 'firmware', 'worker']) expect(body.apps[app]).toBe('up');
    expect(body.database).toBe(true);
    const ready = await rt.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ ready: true, database: true, object_store: true });
  });

  it('after a restart with the same environment the app answers again and /status is ok', async () => {
    startLogdata();
    await waitForStatus(rt.baseUrl, 'ok', 60_000);
    const reply = await rt.http.get(`/logdata/${name}`, { auth: customer.readOnly });
    expect(reply.status).toBe(404);
    expect(reply.text.trimEnd()).toBe('404 Not Found: log file not found');
    expect((await rt.http.get('/status')).json().apps.logdata).toBe('up');
  });
});
