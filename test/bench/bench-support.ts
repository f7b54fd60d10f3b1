import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
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
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
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
export const SERVER_NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=32'];

export function spawnNode(script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, script], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  return child;
}

/** Newest 6-digit code in an outbox directory of .eml files, for an address. */
export function codeFromOutbox(outbox: string, email: string): string | null {
  const files = readdirSync(outbox).filter((f) => f.endsWith('.eml')).sort().reverse();
  for (const file of files) {
    const text = readFileSync(join(outbox, file), 'utf8');
    if (!text.toLowerCase().includes(email.toLowerCase())) continue;
    const code = /\b(\d{6})\b/.exec(text.replace(/=\r?\n/g, ''));
    if (code) return code[1]!;
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
  const verify = await fetch(`${baseUrl}/auth/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, code }) });
  if (verify.status !== 200) throw new Error(`verify answered ${verify.status}: ${await verify.text()}`);
  const identity = (await verify.json()) as { csrf_token: string };
  const cookies = verify.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const created = await fetch(`${baseUrl}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: cookies, 'x-csrf-token': identity.csrf_token },
    body: JSON.stringify({ name: 'bench', bundle }),
  });
  if (created.status !== 201) throw new Error(`token creation answered ${created.status}: ${await created.text()}`);
  return ((await created.json()) as { token: string }).token;
}
