import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { metricNamesOf, type MetricSource, ServiceMetrics } from '../../../libs/infra/src/telemetry/metric-names.js';
import { BACKEND_APPS } from '../support/constants.js';
import { eventually } from '../support/factories.js';
import { startRuntime, waitForStatus, type Runtime } from '../support/runtime.js';
import { HEALTH_PORTS_VARIABLE, healthPortEnv, isAlive, readStackState, ROOT, spawnApp, stopPid, writeStackState } from '../support/stack.js';

/**
 * Every process's probes and /metrics (distributed runtime only; docs/operations.md "Probes and
 * metrics"): each backend app's health listener answers /livez, /startupz, /readyz and a
 * token-protected /metrics with the names metric-names.ts lists for it; the gateway's /metrics
 * has its share; an app stopped fails its probes and the gateway reports it down (`fds_up` 0),
 * while the gateway stays ready; the update-check role is ready without a database check.
 */

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

function healthPort(name: string): number {
  const port = Number(healthPortEnv(name, { [HEALTH_PORTS_VARIABLE]: process.env[HEALTH_PORTS_VARIABLE] ?? '{}' }).HEALTH_PORT);
  if (!port) throw new Error(`no health port for ${name}: the e2e-distributed globalSetup gives each app one`);
  return port;
}

interface Reply {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

async function probe(name: string, path: string, token?: string): Promise<Reply> {
  const res = await fetch(`http://127.0.0.1:${healthPort(name)}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Whether the listener answers at all (a stopped process refuses the connection). */
async function answers(name: string, path: string): Promise<boolean> {
  try {
    return (await probe(name, path)).status === 200;
  } catch {
    return false;
  }
}

/** The value of one sample line (`name{labels} value`), or null when the series is absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

function typedNames(text: string): Set<string> {
  return new Set(text.split('\n').flatMap((l) => (l.startsWith('# TYPE ') ? [l.split(' ')[2]] : [])));
}

const BACKEND_SOURCES: readonly MetricSource[] = BACKEND_APPS;

describe('probes and metrics of every process (distributed)', () => {
  let rt: Runtime;

  beforeAll(async () => {
    rt = await startRuntime();
  });

  afterAll(async () => {
    const state = readStackState(stateDir());
    if (!state.pids.logdata || !isAlive(state.pids.logdata)) {
      const child = spawnApp('logdata', state.appEnv, state.logDir);
      child.unref(); // the global teardown stops it by pid
      state.pids.logdata = child.pid!;
      writeStackState(stateDir(), state);
    }
    await waitForStatus(rt.baseUrl, 'ok', 60_000).catch(() => undefined);
    await rt?.stop();
  });

  it.each(BACKEND_SOURCES)('%s answers /livez, /startupz and /readyz (bus and database checked)', async (app) => {
    expect(await probe(app, '/livez')).toMatchObject({ status: 200, text: 'ok\n' });
    expect((await probe(app, '/startupz')).status).toBe(200);
    const ready = await probe(app, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ app, ready: true, checks: { bus: true, database: true } });
    expect((await probe(app, '/nothing')).status).toBe(404);
  });

  it.each(BACKEND_SOURCES)('%s serves /metrics with METRICS_TOKEN only, with every name it owns', async (app) => {
    expect((await probe(app, '/metrics')).status).toBe(401);
    const wrong = await probe(app, '/metrics', `${rt.metricsToken}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const reply = await probe(app, '/metrics', rt.metricsToken);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const names = typedNames(reply.text);
    for (const name of metricNamesOf(app)) expect([app, name, names.has(name)]).toEqual([app, name, true]);
    expect(sample(reply.text, `fds_up{app="${app}"}`)).toBe(1);
    expect(reply.text).toMatch(new RegExp(`^fds_build_info\\{app="${app}",version="[^"]+",commit="[^"]+"\\} 1$`, 'm'));
    // Every process with tables reports its pool, DATABASE_POOL_SIZE (10 here) as its maximum.
    expect(sample(reply.text, `fds_db_pool_connections{app="${app}",state="max"}`)).toBe(10);
    expect(sample(reply.text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it('the outbox apps report their backlog; the admin app its last backup; the job apps their queues', async () => {
    for (const app of ServiceMetrics.outboxBacklog.exportedBy) {
      const text = (await probe(app, '/metrics', rt.metricsToken)).text;
      expect([app, sample(text, `fds_outbox_backlog{app="${app}"}`)]).toEqual([app, expect.any(Number)]);
      expect([app, sample(text, `fds_outbox_oldest_age_seconds{app="${app}"}`)]).toEqual([app, expect.any(Number)]);
    }
    const admin = (await probe('admin', '/metrics', rt.metricsToken)).text;
    expect(sample(admin, 'fds_backup_last_success_timestamp_seconds')).toEqual(expect.any(Number));
    // The admin app works on the backup queues: their depths are reported.
    expect(admin).toMatch(/^fds_job_queue_depth\{queue="backup",state="waiting"\} \d+$/m);
    // The gateway's requests over NATS (its health checks at least) are timed per subject.
    const gateway = await rt.http.get('/metrics', { auth: rt.metricsToken });
    expect(gateway.text).toMatch(/^fds_nats_request_duration_seconds_count\{subject="[^"]+"\} [1-9]\d*$/m);
  });

  it('the gateway /metrics keeps its request metrics and adds the process, build and readiness metrics', async () => {
    await rt.http.get('/healthz');
    const reply = await rt.http.get('/metrics', { auth: rt.metricsToken });
    expect(reply.status).toBe(200);
    const names = typedNames(reply.text);
    for (const name of metricNamesOf('gateway')) expect([name, names.has(name)]).toEqual([name, true]);
    expect(reply.text).toMatch(/^fds_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]\d*$/m);
    expect(reply.text).toMatch(/^fds_http_request_duration_seconds_count\{route="\/healthz",method="GET"\} [1-9]\d*$/m);
    expect(sample(reply.text, 'fds_up{app="gateway"}')).toBe(1);
    for (const app of BACKEND_APPS) expect([app, sample(reply.text, `fds_up{app="${app}"}`)]).toEqual([app, 1]);
    // Each name appears in one `# TYPE` line only (the gateway's own part and the registry do not overlap).
    const typeLines = reply.text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(typeLines.length).toBe(new Set(typeLines.map((l) => l.split(' ')[2])).size);
  });

  it('an app stopped fails its probes, the gateway reports it down (fds_up 0) and stays ready; restarted, it is back', async () => {
    const state = readStackState(stateDir());
    await stopPid(state.pids.logdata!);
    expect(await answers('logdata', '/livez')).toBe(false);
    expect(await answers('logdata', '/readyz')).toBe(false);
    expect((await rt.http.get('/status')).json().apps.logdata).toBe('down');
    const metrics = await rt.http.get('/metrics', { auth: rt.metricsToken });
    expect(sample(metrics.text, 'fds_up{app="logdata"}')).toBe(0);
    expect(sample(metrics.text, 'fds_up{app="registry"}')).toBe(1);
    expect((await rt.http.get('/readyz')).status).toBe(200);

    const child = spawnApp('logdata', state.appEnv, state.logDir);
    child.unref();
    state.pids.logdata = child.pid!;
    writeStackState(stateDir(), state);
    await eventually(
      () => answers('logdata', '/readyz'),
      (ok) => ok,
      { timeoutMs: 60_000 },
    );
    await waitForStatus(rt.baseUrl, 'ok', 60_000);
    expect(sample((await rt.http.get('/metrics', { auth: rt.metricsToken })).text, 'fds_up{app="logdata"}')).toBe(1);
  });

  describe('the update-check role', () => {
    let role: ChildProcess;

    beforeAll(async () => {
      const state = readStackState(stateDir());
      const out = openSync(join(state.logDir, 'firmware-update-check.log'), 'a');
      role = spawn(process.execPath, ['--enable-source-maps', join(ROOT, 'dist/apps/firmware/src/main.js'), '--role=update-check'], {
        cwd: ROOT,
        env: { ...state.appEnv, ...healthPortEnv('firmware-update-check', state.appEnv) },
        stdio: ['ignore', out, out],
      });
      closeSync(out);
      await eventually(
        () => answers('firmware-update-check', '/startupz'),
        (ok) => ok,
        { timeoutMs: 60_000 },
      );
    });

    afterAll(async () => {
      if (role?.pid) await stopPid(role.pid);
    });

    it('is ready on the bus alone: its readiness has no database check', async () => {
      const ready = await probe('firmware-update-check', '/readyz');
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.text)).toEqual({ app: 'firmware-update-check', ready: true, checks: { bus: true } });
    });

    it('is named apart in its metrics, with its own names and no outbox', async () => {
      const text = (await probe('firmware-update-check', '/metrics', rt.metricsToken)).text;
      const names = typedNames(text);
      for (const name of metricNamesOf('firmware-update-check')) expect([name, names.has(name)]).toEqual([name, true]);
      expect(names.has('fds_outbox_backlog')).toBe(false);
      expect(sample(text, 'fds_up{app="firmware-update-check"}')).toBe(1);
    });

    it('fails its readiness once told to stop (SIGTERM)', async () => {
      // Readiness drops first; the listener goes with the process once it has drained.
      role.kill('SIGTERM');
      await eventually(
        () => answers('firmware-update-check', '/readyz'),
        (ok) => !ok,
        { timeoutMs: 20_000 },
      );
    });
  });
});
