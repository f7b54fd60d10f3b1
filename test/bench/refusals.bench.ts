// npm run bench:refusals — whether clients that go on sending after a refusal read it. Against
// the standalone service, TRIES (default 100) tries each, one after the other, with Node's
// http client writing its whole request before reading: an upload of 16,777,217 bytes (the
// log-file limit + 1) announced by Content-Length (413), the same upload without credentials
// (401), a 4 MiB JSON body (413), and 100 KB of request headers (431). Prints for each how
// many tries read the answer and what the others saw (target: every try reads it).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendLargeHeaders, sendWholeBody, tally, type Outcome } from '../e2e/support/refusals.js';
import { freePort, spawnNode, standaloneBenchEnv, tempDir, tokenViaOutbox, waitForHttp } from './bench-support.js';

const TRIES = Number(process.env.BENCH_TRIES ?? 100);
const LOG_LIMIT = 16 * 1024 * 1024;
const here = fileURLToPath(new URL('.', import.meta.url));

async function tries(run: () => Promise<Outcome>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < TRIES; i++) outcomes.push(await run());
  return outcomes;
}

function report(label: string, outcomes: Outcome[], status: number): boolean {
  const { answered, tries: n, other } = tally(outcomes, status);
  const rest = Object.entries(other)
    .map(([what, count]) => `${what}: ${count}`)
    .join(', ');
  console.log(`  ${label.padEnd(46)} ${String(answered).padStart(4)} of ${n} read the ${status}${rest ? `   (others: ${rest})` : ''}`);
  return answered === n;
}

async function main(): Promise<void> {
  const port = await freePort();
  const dataDir = tempDir('bench-refusals-');
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = spawnNode(join(here, '../../apps/standalone/src/main.js'), standaloneBenchEnv(port, dataDir, 'bench@operator.local'));
  try {
    await waitForHttp(`${baseUrl}/healthz`);
    const token = await tokenViaOutbox(baseUrl, join(dataDir, 'outbox'), 'bench@operator.local', 'full');
    const upload = Buffer.alloc(LOG_LIMIT + 1, 7);
    const json = Buffer.alloc(4 * 1024 * 1024, 0x20);
    const logUrl = `${baseUrl}/logdata/${'e'.repeat(128)}`;
    console.log(`bench:refusals  ${TRIES} tries each, Node ${process.version} client writing the whole request before reading`);
    const results = [
      report(
        'PUT /logdata, 16,777,217 bytes, Content-Length',
        await tries(() => sendWholeBody(logUrl, 'PUT', { authorization: `Bearer ${token}` }, upload)),
        413,
      ),
      report('PUT /logdata, 16,777,217 bytes, no credentials', await tries(() => sendWholeBody(logUrl, 'PUT', {}, upload)), 401),
      report(
        'POST /auth/login, 4 MiB JSON body',
        await tries(() => sendWholeBody(`${baseUrl}/auth/login`, 'POST', { 'content-type': 'application/json' }, json)),
        413,
      ),
      report('GET /healthz, 100 KB of request headers', await tries(() => sendLargeHeaders(`${baseUrl}/healthz`, 100 * 1024)), 431),
    ];
    console.log(results.every(Boolean) ? '  every refusal was read' : '  SOME REFUSALS WERE LOST');
  } finally {
    service.kill('SIGTERM');
  }
}

await main();
