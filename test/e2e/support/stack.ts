import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { DistributedApp } from './constants.js';

/**
 * The distributed runtime's moving parts, shared by the global setup/teardown and by the
 * distributed-only tests that stop and restart an app: free ports, the throwaway database,
 * a Redis database of its own, a private NATS server, and the app processes.
 */

/** The repository root: jest.config.mjs sets rootDir to the working directory, so tests run from there. */
export const ROOT = resolve(process.env.E2E_ROOT ?? process.cwd());

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// ---------------------------------------------------------------- PostgreSQL

const PG_ADMIN_URL = process.env.E2E_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function createDatabase(): Promise<{ name: string; url: string }> {
  const name = `fds_e2e_${randomHex(6)}`;
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

export async function dropDatabase(name: string): Promise<void> {
  if (!/^fds_e2e_[0-9a-f]+$/.test(name)) throw new Error(`refusing to drop ${name}`);
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- Redis

const REDIS_BASE = process.env.E2E_REDIS_BASE_URL ?? 'redis://127.0.0.1:6379';
const CLAIM_KEY = 'fds-e2e:claimed-by';

/**
 * BullMQ's keys (prefix `fds`) would collide with another run on the same Redis database:
 * claim an empty numbered database (1-15) for this run and flush it afterwards.
 */
export async function claimRedisDatabase(runId: string): Promise<{ db: number; url: string }> {
  for (let db = 15; db >= 1; db--) {
    const redis = new Redis(`${REDIS_BASE}/${db}`, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      if ((await redis.dbsize()) !== 0) continue;
      const claimed = await redis.set(CLAIM_KEY, runId, 'EX', 4 * 3600, 'NX');
      if (claimed === 'OK') return { db, url: `${REDIS_BASE}/${db}` };
    } finally {
      redis.disconnect();
    }
  }
  throw new Error(`no empty Redis database (1-15) on ${REDIS_BASE} for this e2e run`);
}

export async function releaseRedisDatabase(db: number, runId: string): Promise<void> {
  const redis = new Redis(`${REDIS_BASE}/${db}`, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    if ((await redis.get(CLAIM_KEY)) === runId) await redis.flushdb();
  } finally {
    redis.disconnect();
  }
}

// ---------------------------------------------------------------- NATS

const NATS_BINARIES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

/**
 * Subjects are the message patterns and queue groups are app names, with no per-run prefix:
 * two stacks on one NATS server would answer each other's requests. So the run gets a NATS
 * server of its own (JetStream on, store in the run's temp dir) when nats-server is
 * installed; E2E_NATS_URL forces a given server instead (e.g. the shared 127.0.0.1:4222).
 */
export async function startNats(dir: string, logFile: string, fixedPort?: number): Promise<{ url: string; process: ChildProcess | null; port?: number }> {
  if (process.env.E2E_NATS_URL) return { url: process.env.E2E_NATS_URL, process: null };
  const binary = NATS_BINARIES.find((b) => existsSync(b));
  if (!binary) return { url: 'nats://127.0.0.1:4222', process: null };
  const port = fixedPort ?? (await freePort());
  const out = openSync(logFile, 'a');
  const child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: ['ignore', out, out] });
  closeSync(out);
  await waitForTcp(port, 10_000, child);
  return { url: `nats://127.0.0.1:${port}`, process: child, port };
}

async function waitForTcp(port: number, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((r) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        r(true);
      });
      socket.once('error', () => r(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

// ---------------------------------------------------------------- App processes

/** What the tests need to find, restart and finally stop the stack (JSON in E2E_STATE_DIR). */
export interface StackState {
  readonly runId: string;
  readonly baseUrl: string;
  readonly logDir: string;
  /** The environment every app process was started with. */
  readonly appEnv: Record<string, string>;
  /** Current pid per app (updated when a test restarts one). */
  pids: Partial<Record<DistributedApp, number>>;
  /** The run's own nats-server, when it started one (a test may restart it on the same port). */
  nats?: { pid: number; port: number; dir: string; logFile: string };
}

export function stateFile(stateDir: string): string {
  return join(stateDir, 'stack.json');
}

export function readStackState(stateDir: string): StackState {
  return JSON.parse(readFileSync(stateFile(stateDir), 'utf8')) as StackState;
}

export function writeStackState(stateDir: string, state: StackState): void {
  const tmp = `${stateFile(stateDir)}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2));
  renameSync(tmp, stateFile(stateDir));
}

export function appLogFile(logDir: string, app: DistributedApp): string {
  return join(logDir, `${app}.log`);
}

/**
 * The health-listener port of each process of the stack, carried in its environment as
 * E2E_HEALTH_PORTS (a JSON object by process name) so that a restarted app gets its port again.
 */
export const HEALTH_PORTS_VARIABLE = 'E2E_HEALTH_PORTS';

/** HEALTH_PORT of `name` from the stack's environment (0, no listener, when it has none). */
export function healthPortEnv(name: string, env: Record<string, string>): Record<string, string> {
  const ports = JSON.parse(env[HEALTH_PORTS_VARIABLE] ?? '{}') as Record<string, number>;
  return { HEALTH_PORT: String(ports[name] ?? 0) };
}

/** `node dist/apps/<app>/src/main.js` with the stack's environment (and its HEALTH_PORT), output appended to <logDir>/<app>.log. */
export function spawnApp(app: DistributedApp, env: Record<string, string>, logDir: string): ChildProcess {
  const main = join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} does not exist: run \`npm run build\` first (or the ${app} app is not written yet)`);
  const out = openSync(appLogFile(logDir, app), 'a');
  try {
    return spawn(process.execPath, ['--enable-source-maps', main], { cwd: ROOT, env: { ...env, ...healthPortEnv(app, env) }, stdio: ['ignore', out, out] });
  } finally {
    closeSync(out);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopPid(pid: number, graceMs = 5_000): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      return;
    }
    while (isAlive(pid)) await sleep(20);
  }
}

/** The last lines of a log file (for failure messages). */
export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Polls GET /status until it answers 200 with status `ok` (every app up). Fails early when
 * one of `children` exits, naming its log.
 */
export async function waitForStatusOk(baseUrl: string, timeoutMs: number, children: Map<DistributedApp, ChildProcess>, logDir: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    for (const [app, child] of children) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `${app} exited (${child.exitCode ?? child.signalCode}) while the stack started; log ${appLogFile(logDir, app)}:\n${tail(appLogFile(logDir, app))}`,
        );
      }
    }
    try {
      const response = await fetch(`${baseUrl}/status`, { signal: AbortSignal.timeout(5_000) });
      const text = await response.text();
      last = `${response.status} ${text}`;
      if (response.status === 200 && (JSON.parse(text) as { status?: string }).status === 'ok') return;
    } catch (err) {
      last = String(err);
    }
    if (Date.now() > deadline) {
      throw new Error(`GET ${baseUrl}/status did not answer ok within ${timeoutMs} ms; last answer: ${last}; logs in ${logDir}`);
    }
    await sleep(300);
  }
}
