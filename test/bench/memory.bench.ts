// npm run bench:memory — the embedded default's memory: the standalone service started as
// `npm start` starts it (only OPERATOR_ADMIN_EMAIL and a DATA_DIR: embedded database, files on
// disk, mail to the outbox), on a fresh DATA_DIR and then reopened on the same one. Prints the
// resident set (VmRSS, and its anonymous and file-backed parts from /proc/<pid>/smaps_rollup)
// once started and settled, and again after a little load (a device import, log uploads,
// device lists, the console and /openapi.json), each with the V8 heap used (/metrics, read
// after the resident set). Target: RSS under 300 MiB for both.
// BENCH_SETTLE_SECONDS (default 10) is how long it waits before each reading.
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort, rssOf, spawnNode, standaloneBenchEnv, tempDir, tokenViaOutbox, waitForHttp } from './bench-support.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const MiB = 1024 * 1024;
const SETTLE_MS = Number(process.env.BENCH_SETTLE_SECONDS ?? 10) * 1000;
const OPERATOR = 'bench@operator.local';
const METRICS_TOKEN = 'bench-memory-metrics-token-0123456789abcdef';

/** VmRSS and its parts, in MiB. */
function memoryOf(pid: number): string {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) / 1024;
  const rss = rssOf(pid) / MiB;
  return `${rss.toFixed(0)} MiB (anonymous ${kib('Anonymous').toFixed(0)}, file-backed ${(kib('Rss') - kib('Anonymous')).toFixed(0)})`;
}

/** The V8 heap used, in MiB, from prom-client's nodejs_heap_size_used_bytes. */
async function heapUsedOf(baseUrl: string): Promise<string> {
  const reply = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const used = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(await reply.text())?.[1];
  return used ? `heap used ${(Number(used) / MiB).toFixed(1)}` : 'heap used unknown';
}

async function api(baseUrl: string, token: string, method: string, path: string, body?: string | Buffer, contentType?: string): Promise<void> {
  const reply = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) },
    body,
  });
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${await reply.text()}`);
  await reply.arrayBuffer();
}

/** A little of what an operator and devices do: enough to load the code paths and caches of a day's use. */
async function littleLoad(baseUrl: string, dataDir: string, round: number): Promise<void> {
  // The last run's login mails go first: the code read must be this login's.
  rmSync(join(dataDir, 'outbox'), { recursive: true, force: true });
  const token = await tokenViaOutbox(baseUrl, join(dataDir, 'outbox'), OPERATOR, 'admin');
  const rows = ['hwid,tags'];
  for (let i = 0; i < 1000; i++) rows.push(`MEM-${round}-${String(i).padStart(5, '0')},bench`);
  await api(baseUrl, token, 'POST', '/devices/import', rows.join('\n'), 'text/csv');
  for (let i = 0; i < 50; i++) {
    const name = `${round}${i}`.padStart(128, '0');
    await api(baseUrl, token, 'PUT', `/logdata/${name}`, Buffer.alloc(64 * 1024, i), 'application/octet-stream');
  }
  for (let i = 0; i < 20; i++) await api(baseUrl, token, 'GET', '/devices?limit=100');
  await api(baseUrl, token, 'GET', '/openapi.json');
  await (await fetch(`${baseUrl}/`)).arrayBuffer();
}

async function measure(dataDir: string, what: string): Promise<void> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = spawnNode(join(here, '../../apps/standalone/src/main.js'), { ...standaloneBenchEnv(port, dataDir, OPERATOR), METRICS_TOKEN });
  try {
    const started = Date.now();
    await waitForHttp(`${baseUrl}/healthz`, 300_000);
    const startSeconds = (Date.now() - started) / 1000;
    await sleep(SETTLE_MS);
    const afterStart = `${memoryOf(service.pid!)}, ${await heapUsedOf(baseUrl)}`;
    const peakAtStart = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    await littleLoad(baseUrl, dataDir, what === 'fresh' ? 1 : 2);
    await sleep(SETTLE_MS);
    const afterLoad = `${memoryOf(service.pid!)}, ${await heapUsedOf(baseUrl)}`;
    console.log(
      `  ${what.padEnd(9)} started in ${startSeconds.toFixed(1)} s; after start ${afterStart} (peak ${peakAtStart.toFixed(0)}); after load ${afterLoad}`,
    );
  } finally {
    service.kill('SIGTERM');
    await once(service, 'exit');
  }
}

async function main(): Promise<void> {
  const dataDir = tempDir('bench-memory-');
  console.log(`bench:memory  the standalone service on an embedded database (target: RSS under 300 MiB after start and after load)`);
  try {
    await measure(dataDir, 'fresh');
    await measure(dataDir, 'reopened');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(
    `  load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')} on ${cpus().length} CPUs`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
