// npm run bench:logdata — 50 concurrent 16 MiB log uploads against the standalone service and,
// in the same run, against a bare node:http server that hashes and writes the same bodies to
// disk (and the same server fsyncing each file, as the service makes an upload durable before
// acknowledging it). Prints throughput of each, the ratios (target >= 0.8) and the service's peak RSS
// growth (target < 256 MiB). Both servers run as child processes so RSS and CPU are theirs
// alone: each round's server CPU per MiB (user + system, every thread) is printed too, the
// ratio that a shared machine's other load disturbs least. The rounds alternate bare, service.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMicrosOf, freePort, rssOf, sampleRss, spawnNode, standaloneBenchEnv, tempDir, tokenViaOutbox, waitForHttp } from './bench-support.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const SIZE = 16 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const here = fileURLToPath(new URL('.', import.meta.url));
const body = randomBytes(SIZE);

function put(url: string, token: string | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'PUT',
        headers: { 'content-length': SIZE, 'content-type': 'application/octet-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Burst {
  readonly mibPerSecond: number;
  /** The server's CPU time per MiB received, in milliseconds. */
  readonly cpuMsPerMiB: number;
}

async function burst(serverPid: number, urlFor: (i: number) => string, token: string | null): Promise<Burst> {
  const cpuBefore = cpuMicrosOf(serverPid);
  const started = process.hrtime.bigint();
  const statuses = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => put(urlFor(i), token)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const failed = statuses.filter((s) => s < 200 || s >= 300);
  if (failed.length) throw new Error(`${failed.length} uploads failed: ${[...new Set(failed)].join(', ')}`);
  const mib = (CONCURRENCY * SIZE) / (1024 * 1024);
  return { mibPerSecond: mib / seconds, cpuMsPerMiB: (cpuMicrosOf(serverPid) - cpuBefore) / 1000 / mib };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The RSS once it stops falling (two readings a second apart within 4 MiB), after 30 s at most. */
async function settledRss(pid: number): Promise<number> {
  let last = rssOf(pid);
  for (let waited = 0; waited < 30; waited++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = rssOf(pid);
    if (last - now < 4 * 1024 * 1024) return now;
    last = now;
  }
  return last;
}

const names = (round: number) => (i: number) => (round.toString(16).padStart(4, '0') + i.toString(16).padStart(4, '0')).padEnd(128, 'a');

async function main(): Promise<void> {
  const barePort = await freePort();
  const bareDir = tempDir('bench-bare-');
  const bare = spawnNode(join(here, 'bare-upload-server.js'), { ...process.env, BARE_DIR: bareDir, BARE_PORT: String(barePort) });
  const durablePort = await freePort();
  const durableDir = tempDir('bench-bare-durable-');
  const durable = spawnNode(join(here, 'bare-upload-server.js'), { ...process.env, BARE_DIR: durableDir, BARE_PORT: String(durablePort), BARE_FSYNC: '1' });
  const servicePort = await freePort();
  const dataDir = tempDir('bench-service-');
  const baseUrl = `http://127.0.0.1:${servicePort}`;
  const service = spawnNode(join(here, '../../apps/standalone/src/main.js'), standaloneBenchEnv(servicePort, dataDir, 'bench@operator.local'));
  try {
    await waitForHttp(`http://127.0.0.1:${barePort}/healthz`);
    await waitForHttp(`http://127.0.0.1:${durablePort}/healthz`);
    await waitForHttp(`${baseUrl}/healthz`);
    const token = await tokenViaOutbox(baseUrl, join(dataDir, 'outbox'), 'bench@operator.local', 'full');
    await put(`${baseUrl}/logdata/${'f'.repeat(128)}`, token); // warm up the path once
    // Started, the service is at its peak (the embedded database's code being compiled, in
    // background threads too) and gives memory back over several seconds: the baseline is the
    // settled state, and the rounds do not share the machine with the compiler.
    const baselineRss = await settledRss(service.pid!);
    let peakRss = baselineRss;
    const bareRounds: Burst[] = [];
    const durableRounds: Burst[] = [];
    const serviceRounds: Burst[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bareRounds.push(await burst(bare.pid!, (i) => `http://127.0.0.1:${barePort}/${names(round)(i)}`, null));
      durableRounds.push(await burst(durable.pid!, (i) => `http://127.0.0.1:${durablePort}/${names(round)(i)}`, null));
      const sampler = sampleRss(service.pid!);
      serviceRounds.push(await burst(service.pid!, (i) => `${baseUrl}/logdata/${names(round)(i)}`, token));
      peakRss = Math.max(peakRss, sampler.stop());
    }
    const best = (xs: readonly Burst[]) => Math.max(...xs.map((b) => b.mibPerSecond));
    const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ratio = best(serviceRounds) / best(bareRounds);
    const cpuRatio = median(bareRounds.map((b) => b.cpuMsPerMiB)) / median(serviceRounds.map((b) => b.cpuMsPerMiB));
    const growthMiB = (peakRss - baselineRss) / (1024 * 1024);
    const show = (xs: readonly Burst[]) => xs.map((b) => `${b.mibPerSecond.toFixed(1)} (${b.cpuMsPerMiB.toFixed(2)} ms)`).join(', ');
    console.log(
      `bench:logdata  ${CONCURRENCY} concurrent uploads of 16 MiB, ${ROUNDS} rounds (best round shown); machine load average ${loadavg()[0].toFixed(1)}`,
    );
    console.log(`  bare node:http (hash + write): ${best(bareRounds).toFixed(1)} MiB/s   rounds, MiB/s (server CPU per MiB): ${show(bareRounds)}`);
    console.log(`  bare, each file fsynced       : ${best(durableRounds).toFixed(1)} MiB/s   rounds: ${show(durableRounds)}`);
    console.log(`  service (standalone)          : ${best(serviceRounds).toFixed(1)} MiB/s   rounds: ${show(serviceRounds)}`);
    console.log(`  ratio service/bare            : ${ratio.toFixed(2)}   (target >= 0.8)`);
    // Like for like: the service acknowledges an upload once it is on disk, the bare sink above does not.
    console.log(`  ratio service/bare fsynced    : ${(best(serviceRounds) / best(durableRounds)).toFixed(2)}`);
    console.log(`  server CPU per MiB, bare/service (medians): ${cpuRatio.toFixed(2)}`);
    console.log(`  service peak RSS growth       : ${growthMiB.toFixed(1)} MiB   (baseline ${(baselineRss / 1048576).toFixed(1)} MiB; target < 256 MiB)`);
  } finally {
    // Each run stores 3 x ROUNDS x 800 MiB: left behind, a few runs fill a disk.
    await Promise.all([stop(bare), stop(durable), stop(service)]);
    for (const dir of [bareDir, durableDir, dataDir]) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
