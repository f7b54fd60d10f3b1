import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** CPU time (user + system, all threads) a process has used so far, in microseconds (Linux /proc). */
export function cpuMicrosOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}
/** USER_HZ: 100 on Linux for every common architecture. */
const CLOCK_TICKS = 100;

/** Samples a process's RSS every `everyMs` until stopped; returns the peak. */
export function sampleRss(pid: number, everyMs = 25): { stop(): number } {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      /* process gone */
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** The Node flags of the start scripts and of the image (package.json, deploy/Dockerfile): every server of a bench runs with them, the bare baselines too. */
export const SERVER_NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=32', '--external-memory-accounted-in-global-limit'];

/** What `npm start` and the image add to the standalone service's environment (package.json, deploy/Dockerfile): a bench's standalone service gets it too, unless its environment sets the variable. */
export const STANDALONE_ENV: NodeJS.ProcessEnv = { GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=131072' };

/** `cpus`: a taskset CPU list (see cpuPlacement) the server is kept on; null: wherever the kernel puts it. */
export function spawnNode(script: string, env: NodeJS.ProcessEnv, cpus: string | null = null): ChildProcess {
  const args = [...SERVER_NODE_FLAGS, script];
  if (script.endsWith(join('apps', 'standalone', 'src', 'main.js'))) env = { ...STANDALONE_ENV, ...env };
  // taskset execs node in its own process: the child's pid is the server's.
  return cpus
    ? spawn('taskset', ['-c', cpus, process.execPath, ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] })
    : spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

export interface CpuPlacement {
  /** CPU list for the measured servers, or null when not placed. */
  readonly servers: string | null;
  /** One line for the report. */
  readonly description: string;
}

/**
 * With `BENCH_PIN=1`: puts this process (the load generator: autocannon runs in it) on the
 * last CPU, all its threads, and returns the CPU list for the servers: every other CPU. Not
 * placed otherwise, with fewer than 2 CPUs, or without taskset.
 *
 * Why one would: over loopback every response wakes the client with a synchronous wake-up,
 * and Linux then tends to run the client on the server's CPU. Seen with `perf sched timehist`
 * during the standalone's run: the server and autocannon took turns on one CPU (the server
 * ran about 15 µs, was preempted by autocannon for about 22 µs, and so on) while the other
 * CPU ran mostly PostgreSQL and the machine sat about 30 % idle. Why it is not the default:
 * on this shared 2-CPU machine it did not make the figures steadier (a/c 0.45, 0.33 and 0.44
 * placed; 0.36 to 0.46 not placed, the same day), a server kept on one CPU cannot move away
 * from other load there, and the bare baseline then measures autocannon on exactly one CPU
 * (about an eighth lower), which is what moves the ratio most.
 */
export function cpuPlacement(): CpuPlacement {
  const count = cpus().length;
  const off = (why: string): CpuPlacement => ({ servers: null, description: `processes not placed (${why})` });
  if (process.env.BENCH_PIN !== '1') return off('BENCH_PIN=1 puts the load generator and the servers on separate CPUs');
  if (count < 2) return off('one CPU');
  const loadGenerator = String(count - 1);
  const servers = count === 2 ? '0' : `0-${count - 2}`;
  try {
    execFileSync('taskset', ['-a', '-c', '-p', loadGenerator, String(process.pid)], { stdio: 'ignore' });
  } catch {
    return off('taskset failed');
  }
  return { servers, description: `load generator on CPU ${loadGenerator}, servers on CPU ${servers} (BENCH_PIN=1)` };
}

/** Newest 6-digit code in an outbox directory of .eml files, for an address. */
export function codeFromOutbox(outbox: string, email: string): string | null {
  const files = readdirSync(outbox)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .reverse();
  for (const file of files) {
    const text = readFileSync(join(outbox, file), 'utf8');
    if (!text.toLowerCase().includes(email.toLowerCase())) continue;
    const code = /\b(\d{6})\b/.exec(text.replace(/=\r?\n/g, ''));
    if (code) return code[1];
  }
  return null;
}

/** Logs in by emailed code (read from the standalone outbox) and creates an API token. */
export async function tokenViaOutbox(baseUrl: string, outbox: string, email: string, bundle: string): Promise<string> {
  await fetch(`${baseUrl}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  let code: string | null = null;
  for (let i = 0; i < 100 && !code; i++) {
    await sleep(100);
    try {
      code = codeFromOutbox(outbox, email);
    } catch {
      /* outbox not created yet */
    }
  }
  if (!code) throw new Error(`no login code for ${email} in ${outbox}`);
  const verify = await fetch(`${baseUrl}/auth/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, code }),
  });
  if (verify.status !== 200) throw new Error(`verify answered ${verify.status}: ${await verify.text()}`);
  const identity = (await verify.json()) as { csrf_token: string };
  const cookies = verify.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const created = await fetch(`${baseUrl}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: cookies, 'x-csrf-token': identity.csrf_token },
    body: JSON.stringify({ name: 'bench', bundle }),
  });
  if (created.status !== 201) throw new Error(`token creation answered ${created.status}: ${await created.text()}`);
  return ((await created.json()) as { token: string }).token;
}

/** The environment of a standalone service for a bench: its own port and DATA_DIR, no servers (embedded database, files on disk, mail to the outbox). */
export function standaloneBenchEnv(port: number, dataDir: string, operatorEmail: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    OPERATOR_ADMIN_EMAIL: operatorEmail,
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    NATS_URL: '',
    REDIS_URL: '',
    S3_BUCKET: '',
    SMTP_URL: '',
  };
}
