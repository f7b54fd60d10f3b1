// npm run bench:reconnect — a fleet reconnecting at once (after an outage, a power cut, a
// network coming back) against the standalone service (one process, embedded database, files
// on disk), and how the service spreads the devices' next checks with Poll-After (docs/api.md
// "When to check again"). BENCH_DEVICES (default 20,000) devices are imported into one customer
// whose polling interval is set to BENCH_POLL_SECONDS (default 3,600) with PATCH /settings,
// and a general release is uploaded. Then:
//   (1) reconnect: every device checks once, BENCH_CONNECTIONS (default 32) at a time: the
//       gateway is not busy. Printed: the histogram of the next checks the answers ask for (in
//       tenths of the interval), the busiest and quietest minute against an even spread, and
//       what the same fleet would do without the service's jitter (all in the same second);
//   (2) storm: every device checks again with BENCH_STORM_CONNECTIONS (default 1,024)
//       connections at once, more requests waiting for the app than UPDATE_CHECK_BUSY_IN_FLIGHT
//       (BENCH_BUSY_IN_FLIGHT, default the service's 512): printed, the statuses (any 429/503
//       with Retry-After) and the load stretch.
// The load stretch of both: each answer's Poll-After over the device's unstretched value,
// computed here with the service's own jitter function (poll-advice.ts: pure, by HW id and
// interval window); on a loaded machine the event-loop delay alone can stretch (1) too.
// Figures only, no thresholds. Drops its files at the end.
import { Agent, request } from 'node:http';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { pollAfterSeconds } from '../../apps/firmware/src/update-check/poll-advice.js';
import { freePort, spawnNode, standaloneBenchEnv, tempDir, tokenViaOutbox, waitForHttp } from './bench-support.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const DEVICES = Number(process.env.BENCH_DEVICES ?? 20_000);
const POLL_SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 3_600);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const STORM_CONNECTIONS = Number(process.env.BENCH_STORM_CONNECTIONS ?? 1_024);
const BUSY_IN_FLIGHT = process.env.BENCH_BUSY_IN_FLIGHT;
const EMAIL = 'bench@operator.local';
const DOMAIN = 'operator.local';
/** What the devices run: older than the general release uploaded, so every answer has a body (signed, 200). */
const RUNNING = '1.0.0';
const OFFERED = '1.1.0';
const BINS = 10;

interface Answer {
  readonly status: number;
  /** Poll-After (seconds), or null when absent. */
  readonly pollAfter: number | null;
  readonly retryAfter: number | null;
  /** Poll-After before any load stretch (the service's jitter, computed here with its own function), or null at an interval window's turn. */
  readonly unstretched: number | null;
}

function hwidOf(n: number): string {
  return `rc-${String(n).padStart(6, '0')}`;
}

function checkPath(n: number): string {
  return `/firmware/${DOMAIN}/board-r/rev1/main/${RUNNING}/${hwidOf(n)}`;
}

/** Every device's update check once, `connections` at a time over keep-alive connections: the answers in device order, and how long it took. */
async function checkAll(baseUrl: string, connections: number): Promise<{ answers: Answer[]; seconds: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const answers: Answer[] = new Array<Answer>(DEVICES);
  let next = 0;
  const started = process.hrtime.bigint();
  const one = (n: number) =>
    new Promise<Answer>((resolve) => {
      const sentAt = Date.now();
      const req = request(`${baseUrl}${checkPath(n)}`, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          const header = (name: string) => (res.headers[name] === undefined ? null : Number(res.headers[name]));
          const before = pollAfterSeconds(POLL_SECONDS, hwidOf(n), sentAt);
          const unstretched = before === pollAfterSeconds(POLL_SECONDS, hwidOf(n), Date.now()) ? before : null;
          resolve({ status: res.statusCode ?? 0, pollAfter: header('poll-after'), retryAfter: header('retry-after'), unstretched });
        });
      });
      req.on('error', () => resolve({ status: 0, pollAfter: null, retryAfter: null, unstretched: null }));
      req.end();
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < DEVICES) {
        const n = next++;
        answers[n] = await one(n);
      }
    }),
  );
  agent.destroy();
  return { answers, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

function statuses(answers: readonly Answer[]): string {
  const counts = new Map<number, number>();
  for (const a of answers) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([x], [y]) => x - y)
    .map(([status, n]) => `${status || 'error'}: ${n}`)
    .join(', ');
}

function bar(count: number, most: number, width = 50): string {
  return '#'.repeat(most ? Math.round((count / most) * width) : 0);
}

/** The spread of next checks asked for in (1): tenths of the interval, and per minute. */
function spread(answers: readonly Answer[]): void {
  const waits = answers.map((a) => a.pollAfter).filter((s): s is number => s !== null);
  const from = POLL_SECONDS / 2;
  const bins = new Array<number>(BINS).fill(0);
  let outside = 0;
  for (const s of waits) {
    const bin = Math.floor(((s - from) / POLL_SECONDS) * BINS);
    if (bin < 0 || bin >= BINS) outside++;
    else bins[bin]++;
  }
  const most = Math.max(...bins);
  console.log(`  next check asked for (Poll-After), ${waits.length} answers, in tenths of the interval from ${from} s:`);
  bins.forEach((count, i) => {
    const lower = from + (i * POLL_SECONDS) / BINS;
    console.log(`    ${String(lower).padStart(7)} s - ${String(lower + POLL_SECONDS / BINS).padStart(7)} s  ${String(count).padStart(6)}  ${bar(count, most)}`);
  });
  if (outside) console.log(`    outside [interval/2, 3·interval/2): ${outside} (stretched while the gateway was busy)`);
  // An even spread of the answers inside the range (the stretched ones are counted apart).
  const even = (waits.length - outside) / BINS;
  const deviation = Math.max(...bins.map((count) => Math.abs(count - even))) / even;
  console.log(`  largest tenth off an even spread (${even.toFixed(0)} each) by ${(deviation * 100).toFixed(1)} %`);
  const minutes = new Map<number, number>();
  for (const s of waits) minutes.set(Math.floor(s / 60), (minutes.get(Math.floor(s / 60)) ?? 0) + 1);
  const perMinute = [...minutes.values()];
  const minuteCount = Math.ceil(POLL_SECONDS / 60);
  console.log(
    `  checks per minute when they come back: busiest ${Math.max(...perMinute)}, quietest ${Math.min(...perMinute)} over ${minutes.size} minutes (even: ${(waits.length / minuteCount).toFixed(0)}); busiest second ${Math.max(...countsPer(waits))}`,
  );
  console.log(`  without the service's jitter (Poll-After = the interval for all): ${waits.length} checks in one second, ${POLL_SECONDS} s later`);
}

function countsPer(values: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.values()];
}

/** Each answer's Poll-After over the same device's unstretched value: the load stretch the gateway applied. */
function stretch(answers: readonly Answer[]): void {
  const ratios = answers.filter((a) => a.pollAfter !== null && a.unstretched).map((a) => a.pollAfter! / a.unstretched!);
  const bands: [string, (r: number) => boolean][] = [
    ['x1 (not stretched)', (r) => r < 1.01],
    ['x1 - x2', (r) => r >= 1.01 && r < 2],
    ['x2 - x4', (r) => r >= 2 && r < 4],
    ['x4 - x8', (r) => r >= 4],
  ];
  const counts = bands.map(([, inBand]) => ratios.filter(inBand).length);
  const most = Math.max(...counts);
  console.log(`  load stretch of Poll-After (over the device's unstretched jitter), ${ratios.length} answers:`);
  bands.forEach(([label], i) => console.log(`    ${label.padEnd(20)} ${String(counts[i]).padStart(6)}  ${bar(counts[i], most)}`));
  const sorted = [...ratios].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = ratios.reduce((x, y) => x + y, 0) / (ratios.length || 1);
  console.log(
    `    mean x${mean.toFixed(2)}, median x${at(0.5).toFixed(2)}, p99 x${at(0.99).toFixed(2)}, most x${(sorted.at(-1) ?? 0).toFixed(2)} (at most x8)`,
  );
  console.log(`  the devices come back after ${(meanOf(answers) / 60).toFixed(0)} min on average (unstretched: ${(POLL_SECONDS / 60).toFixed(0)} min)`);
  const refused = answers.filter((a) => a.retryAfter !== null);
  if (refused.length) console.log(`  refused with Retry-After: ${refused.length} (Retry-After ${[...new Set(refused.map((a) => a.retryAfter))].join(', ')} s)`);
}

function meanOf(answers: readonly Answer[]): number {
  const waits = answers.map((a) => a.pollAfter).filter((s): s is number => s !== null);
  return waits.reduce((x, y) => x + y, 0) / (waits.length || 1);
}

async function send(baseUrl: string, token: string, method: string, path: string, body: string | FormData, type?: string): Promise<string> {
  const reply = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(type ? { 'content-type': type } : {}) },
    body,
  });
  const text = await reply.text();
  if (reply.status >= 300) throw new Error(`${method} ${path} answered ${reply.status}: ${text.slice(0, 300)}`);
  return text;
}

async function main(): Promise<void> {
  const started = Date.now();
  const dataDir = tempDir('bench-reconnect-');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = spawnNode(join(here, '../../apps/standalone/src/main.js'), {
    ...standaloneBenchEnv(port, dataDir, EMAIL),
    OPERATOR_DOMAIN: DOMAIN,
    LOG_LEVEL: 'error',
    // Every check comes from 127.0.0.1: the per-address limit would refuse the fleet.
    UPDATE_CHECK_RATE_PER_MINUTE: '1000000000',
    ...(BUSY_IN_FLIGHT ? { UPDATE_CHECK_BUSY_IN_FLIGHT: BUSY_IN_FLIGHT } : {}),
    OTEL_SDK_DISABLED: 'true',
  });
  try {
    // The embedded database migrates on the first start: minutes on a loaded machine.
    await waitForHttp(`${baseUrl}/healthz`, 600_000);
    const token = await tokenViaOutbox(baseUrl, join(dataDir, 'outbox'), EMAIL, 'full');
    const csv = `hwid,tags\n${Array.from({ length: DEVICES }, (_, n) => `${hwidOf(n)},fleet`).join('\n')}\n`;
    await send(baseUrl, token, 'POST', '/devices/import', csv, 'text/csv');
    const form = new FormData();
    form.append('firmware', new Blob([Buffer.from(`code\0@(#)${OFFERED}, 2026-11-20, AFI\0more`, 'latin1')]), 'fw.bin');
    await send(baseUrl, token, 'PUT', '/firmware/board-r/rev1/main?general_release=true', form);
    await send(baseUrl, token, 'PATCH', '/settings', JSON.stringify({ poll_interval_seconds: POLL_SECONDS }), 'application/json');
    // The setting reaches the update check at once (customerChanged); wait for it all the same.
    for (let i = 0; ; i++) {
      const probe = await fetch(`${baseUrl}${checkPath(DEVICES)}`);
      await probe.arrayBuffer();
      const advised = Number(probe.headers.get('poll-after'));
      if (probe.status === 200 && advised >= POLL_SECONDS / 2 && advised < (POLL_SECONDS * 3) / 2) break;
      if (i > 100) throw new Error(`the update check does not advise the interval set (status ${probe.status}, Poll-After ${advised})`);
      await sleep(200);
    }
    const ready = Date.now();

    const calm = await checkAll(baseUrl, CONNECTIONS);
    const storm = await checkAll(baseUrl, STORM_CONNECTIONS);

    const line = '-'.repeat(100);
    const os = await import('node:os');
    console.log(line);
    console.log(
      `bench:reconnect  ${DEVICES.toLocaleString('en')} devices of one customer, polling interval ${POLL_SECONDS} s (PATCH /settings), standalone service (embedded database)`,
    );
    console.log(
      `  machine: ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}; setup ${((ready - started) / 1000).toFixed(0)} s`,
    );
    console.log(
      `(1) reconnect: every device once, ${CONNECTIONS} connections: ${calm.seconds.toFixed(1)} s, ${(DEVICES / calm.seconds).toFixed(0)} checks/s (${statuses(calm.answers)})`,
    );
    spread(calm.answers);
    stretch(calm.answers);
    console.log(
      `(2) storm: every device again, ${STORM_CONNECTIONS} connections at once (UPDATE_CHECK_BUSY_IN_FLIGHT ${BUSY_IN_FLIGHT ?? '512, the default'}): ${storm.seconds.toFixed(1)} s, ${(DEVICES / storm.seconds).toFixed(0)} checks/s (${statuses(storm.answers)})`,
    );
    stretch(storm.answers);
    console.log(line);
  } finally {
    const exited = new Promise((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (service.exitCode === null && service.signalCode === null) service.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
