// npm run bench:logdata — 50 concurrent 16 MiB log uploads against the standalone service and,
// in the same run, against a bare node:http server that hashes and writes the same bodies to
// disk. Prints throughput of both, their ratio (target >= 0.7) and the service's peak RSS
// growth (target < 256 MiB). Both servers run as child processes so RSS is theirs alone.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, rssOf, sampleRss, spawnNode, standaloneBenchEnv, tempDir, tokenViaOutbox, waitForHttp } from './bench-support.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const SIZE = 16 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
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

async function burst(urlFor: (i: number) => string, token: string | null): Promise<number> {
  const started = process.hrtime.bigint();
  const statuses = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => put(urlFor(i), token)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const failed = statuses.filter((s) => s < 200 || s >= 300);
  if (failed.length) throw new Error(`${failed.length} uploads failed: ${[...new Set(failed)].join(', ')}`);
  return (CONCURRENCY * SIZE) / (1024 * 1024) / seconds;
}

const names = (round: number) => (i: number) => (round.toString(16).padStart(4, '0') + i.toString(16).padStart(4, '0')).padEnd(128, 'a');

async function main(): Promise<void> {
  const barePort = await freePort();
  const bare = spawnNode(join(here, 'bare-upload-server.js'), { ...process.env, BARE_DIR: tempDir('bench-bare-'), BARE_PORT: String(barePort) });
  const servicePort = await freePort();
  const dataDir = tempDir('bench-service-');
  const baseUrl = `http://127.0.0.1:${servicePort}`;
  const service = spawnNode(join(here, '../../apps/standalone/src/main.js'), standaloneBenchEnv(servicePort, dataDir, 'bench@operator.local'));
  try {
    await waitForHttp(`http://127.0.0.1:${barePort}/healthz`);
    await waitForHttp(`${baseUrl}/healthz`);
    const token = await tokenViaOutbox(baseUrl, join(dataDir, 'outbox'), 'bench@operator.local', 'full');
    await put(`${baseUrl}/logdata/${'f'.repeat(128)}`, token); // warm up the path once
    const baselineRss = rssOf(service.pid!);
    let peakRss = baselineRss;
    const bareRates: number[] = [];
    const serviceRates: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bareRates.push(await burst((i) => `http://127.0.0.1:${barePort}/${names(round)(i)}`, null));
      const sampler = sampleRss(service.pid!);
      serviceRates.push(await burst((i) => `${baseUrl}/logdata/${names(round)(i)}`, token));
      peakRss = Math.max(peakRss, sampler.stop());
    }
    const best = (xs: number[]) => Math.max(...xs);
    const ratio = best(serviceRates) / best(bareRates);
    const growthMiB = (peakRss - baselineRss) / (1024 * 1024);
    console.log(`bench:logdata  ${CONCURRENCY} concurrent uploads of 16 MiB, ${ROUNDS} rounds (best round shown)`);
    console.log(`  bare node:http (hash + write): ${best(bareRates).toFixed(1)} MiB/s   rounds: ${bareRates.map((r) => r.toFixed(1)).join(', ')}`);
    console.log(`  service (standalone)          : ${best(serviceRates).toFixed(1)} MiB/s   rounds: ${serviceRates.map((r) => r.toFixed(1)).join(', ')}`);
    console.log(`  ratio service/bare            : ${ratio.toFixed(2)}   (target >= 0.7)`);
    console.log(`  service peak RSS growth       : ${growthMiB.toFixed(1)} MiB   (baseline ${(baselineRss / 1048576).toFixed(1)} MiB; target < 256 MiB)`);
  } finally {
    bare.kill('SIGTERM');
    service.kill('SIGTERM');
  }
}

await main();
