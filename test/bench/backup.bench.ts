// npm run bench:backup — a standalone service holding 100,000 devices and 10,000 log files
// (1 GiB in all) is backed up and restored through the API; in the same run the same files are
// copied with `cp -r`, and that copy then made durable with `sync -f` (the backup and the restore
// end durable). Prints the backup's and the restore's throughput against both copies' (target: at
// least half) and the service's peak RSS growth during each (target < 256 MiB).
// BENCH_DEVICES, BENCH_LOG_FILES and BENCH_TOTAL_MIB scale it down for a quick look;
// BENCH_SHOW_LOGS=1 prints the runs' timestamped logs (where the time goes).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateBackupKeyPair } from '@app/infra';
import { freePort, rssOf, sampleRss, spawnNode, standaloneBenchEnv, tempDir, tokenViaOutbox, waitForHttp } from './bench-support.js';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const LOG_FILES = Number(process.env.BENCH_LOG_FILES ?? 10_000);
const TOTAL_BYTES = Number(process.env.BENCH_TOTAL_MIB ?? 1024) * 1024 * 1024;
const FILE_BYTES = Math.floor(TOTAL_BYTES / LOG_FILES);
const UPLOAD_CONCURRENCY = 16;
const here = fileURLToPath(new URL('.', import.meta.url));
const MiB = 1024 * 1024;

interface Run {
  status: string;
  total_bytes: number | null;
  object_count: number | null;
  error: string | null;
  log: string;
}

async function api(baseUrl: string, token: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    body: body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

async function expectOk(reply: Response, what: string): Promise<Response> {
  if (reply.status >= 300) throw new Error(`${what}: ${reply.status} ${await reply.text()}`);
  return reply;
}

async function seed(baseUrl: string, token: string): Promise<void> {
  const started = Date.now();
  for (let from = 0; from < DEVICES; from += 50_000) {
    const rows = ['hwid,tags'];
    for (let i = from; i < Math.min(DEVICES, from + 50_000); i++) rows.push(`DEV-${String(i).padStart(7, '0')},bench fleet-${i % 10}`);
    await expectOk(await api(baseUrl, token, 'POST', '/devices/import', rows.join('\n'), 'text/csv'), 'device import');
  }
  let next = 0;
  const content = randomBytes(FILE_BYTES);
  const worker = async () => {
    for (let i = next++; i < LOG_FILES; i = next++) {
      const body = Buffer.from(content);
      body.writeUInt32BE(i, 0); // distinct files
      const name = i.toString(16).padStart(128, '0');
      await expectOk(await api(baseUrl, token, 'PUT', `/logdata/${name}`, body, 'application/octet-stream'), `log file ${i}`);
    }
  };
  await Promise.all(Array.from({ length: UPLOAD_CONCURRENCY }, worker));
  console.log(`  seeded ${DEVICES} devices and ${LOG_FILES} log files of ${FILE_BYTES} bytes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function timedRun(
  baseUrl: string,
  token: string,
  pid: number,
  start: () => Promise<Response>,
): Promise<{ seconds: number; run: Run; rssGrowth: number }> {
  const baseline = rssOf(pid);
  const sampler = sampleRss(pid);
  const started = process.hrtime.bigint();
  const { id } = (await (await expectOk(await start(), 'start')).json()) as { id: string };
  let run: Run;
  for (;;) {
    run = (await (await api(baseUrl, token, 'GET', `/admin/backups/${id}`)).json()) as Run;
    if (run.status === 'succeeded' || run.status === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const peak = sampler.stop();
  if (run.status !== 'succeeded') throw new Error(`run failed: ${run.error}\n${run.log}`);
  return { seconds, run, rssGrowth: (peak - baseline) / MiB };
}

async function main(): Promise<void> {
  const port = await freePort();
  const dataDir = tempDir('bench-backup-');
  const copyDir = tempDir('bench-backup-cp-');
  const baseUrl = `http://127.0.0.1:${port}`;
  const keys = await generateBackupKeyPair();
  const env = { ...standaloneBenchEnv(port, dataDir, 'bench@operator.local'), BACKUP_PUBLIC_KEY: keys.publicKey, BACKUP_SCHEDULE: 'off', BACKUP_KEEP: '2' };
  const service = spawnNode(join(here, '../../apps/standalone/src/main.js'), env);
  try {
    await waitForHttp(`${baseUrl}/healthz`, 180_000);
    const token = await tokenViaOutbox(baseUrl, join(dataDir, 'outbox'), 'bench@operator.local', 'admin');
    console.log(`bench:backup  ${DEVICES} devices, ${LOG_FILES} log files, ${(TOTAL_BYTES / MiB).toFixed(0)} MiB of files`);
    await seed(baseUrl, token);

    // Whatever the seeding left unwritten goes to disk first: the copy's flush then writes the copy alone.
    execFileSync('sync');
    const cpStarted = process.hrtime.bigint();
    execFileSync('cp', ['-r', join(dataDir, 'objects'), join(copyDir, 'objects')]);
    const cpSeconds = Number(process.hrtime.bigint() - cpStarted) / 1e9;
    const cpRate = TOTAL_BYTES / MiB / cpSeconds;
    // The backup and the restore are durable when they end (the archive fsynced, the restored
    // files flushed): the same copy made durable (`sync -f`, one syncfs) is the like-for-like figure.
    execFileSync('sync', ['-f', copyDir]);
    const durableSeconds = Number(process.hrtime.bigint() - cpStarted) / 1e9;
    const durableRate = TOTAL_BYTES / MiB / durableSeconds;

    const backup = await timedRun(baseUrl, token, service.pid!, () => api(baseUrl, token, 'POST', '/admin/backups'));
    const archive = /archive written: .*/.exec(backup.run.log)?.[0] ?? '';
    const name = /backup to (\S+)/.exec(backup.run.log)?.[1] ?? '';
    const restore = await timedRun(baseUrl, token, service.pid!, () =>
      api(baseUrl, token, 'POST', '/admin/restores', {
        archive_name: name,
        confirm: `restore ${name}`,
        backup_key_b64: Buffer.from(keys.secretKey).toString('base64'),
      }),
    );
    const mib = (backup.run.total_bytes ?? 0) / MiB;
    const backupRate = mib / backup.seconds;
    const restoreRate = mib / restore.seconds;
    const ratios = (rate: number) => `ratio ${(rate / cpRate).toFixed(2)} to cp -r, ${(rate / durableRate).toFixed(2)} to cp -r + sync (target >= 0.5)`;
    console.log(`  cp -r of the stored files     : ${cpRate.toFixed(1)} MiB/s (${cpSeconds.toFixed(1)} s)`);
    console.log(`  cp -r, then sync -f           : ${durableRate.toFixed(1)} MiB/s (${durableSeconds.toFixed(1)} s)`);
    console.log(
      `  backup  (${backup.run.object_count} entries, ${mib.toFixed(0)} MiB): ${backupRate.toFixed(1)} MiB/s (${backup.seconds.toFixed(1)} s)  ${ratios(backupRate)}`,
    );
    console.log(`    ${archive}`);
    console.log(`  restore (verify + apply)      : ${restoreRate.toFixed(1)} MiB/s (${restore.seconds.toFixed(1)} s)  ${ratios(restoreRate)}`);
    console.log(`  peak RSS growth: backup ${backup.rssGrowth.toFixed(1)} MiB, restore ${restore.rssGrowth.toFixed(1)} MiB (target < 256 MiB)`);
    // The runs' logs are timestamped: where the time goes beyond the archive itself.
    if (process.env.BENCH_SHOW_LOGS) console.log(`  backup log:\n${backup.run.log}\n  restore log:\n${restore.run.log}`);
  } finally {
    service.kill('SIGTERM');
    rmSync(copyDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
