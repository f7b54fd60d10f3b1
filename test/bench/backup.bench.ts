// npm run bench:backup — a standalone service holding 100,000 devices and 10,000 log files
// (1 GiB in all) is backed up and restored through the API. In the same run, the fair baseline:
// standard tools doing the same work on the same bytes (the stored files and the apps' dumps,
// taken from the service's archive), `tar -cf - | bare-sealed-stream.js seal` (ChaCha20-Poly1305
// in 64 KiB chunks as age's payload, a SHA-256 of the whole, the file fsynced) and back,
// `bare-sealed-stream.js open | tar -xf -` then `sync -f`, into an empty directory and over a
// copy of the stored files (the service's restore replaces them: the restore's ratio is taken
// against that one); and, for scale, `cp -r` of the stored files alone (with and without
// `sync -f`). Prints the backup's and the restore's throughput against the baseline (target: at
// least half) and the service's peak RSS growth during each (target < 256 MiB).
// BENCH_DEVICES, BENCH_LOG_FILES and BENCH_TOTAL_MIB scale it down for a quick look;
// BENCH_SHOW_LOGS=1 prints the runs' timestamped logs (where the time goes).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { DUMP_ENTRY_PREFIX, generateBackupKeyPair, readArchive } from '@app/infra';
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

/** The dumps of an archive written as files under `dir/dumps/` (not timed: the baseline's input). */
async function extractDumps(archive: string, secretKey: string, dir: string): Promise<void> {
  mkdirSync(join(dir, DUMP_ENTRY_PREFIX), { recursive: true });
  await readArchive(createReadStream(archive), secretKey, async (entry) => {
    if (entry.name.startsWith(DUMP_ENTRY_PREFIX)) await pipeline(entry.body, createWriteStream(join(dir, entry.name)));
  });
}

/** Runs a shell pipeline (bash, pipefail: any step failing fails it); its seconds and standard output. */
function timedShell(script: string, env: NodeJS.ProcessEnv): { seconds: number; out: string } {
  const started = process.hrtime.bigint();
  const out = execFileSync('bash', ['-o', 'pipefail', '-c', script], { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1024 * 1024 });
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, out };
}

/**
 * The fair baseline, standard tools on the same bytes as the service's archive (the stored
 * files, the dumps): tar into the sealing script, the file fsynced; then back, opened and
 * checked into tar, the files flushed with `sync -f`: into an empty directory, and over a copy
 * of the stored files (`replaceDir`, holding `objects/`), as the service's restore replaces
 * them (each file there is removed first: on ext4, thousands of removals cost seconds).
 */
function bareBackupAndRestore(
  dataDir: string,
  dumpsDir: string,
  workDir: string,
  replaceDir: string,
): { backupSeconds: number; restoreSeconds: number; replaceSeconds: number; archiveBytes: number } {
  const sealer = join(here, 'bare-sealed-stream.js');
  const env = {
    BARE_KEY: randomBytes(32).toString('hex'),
    NODE: process.execPath,
    SEALER: sealer,
    DATA: dataDir,
    DUMPS: dumpsDir,
    ARCHIVE: join(workDir, 'bare.sealed'),
    OUT: join(workDir, 'restored'),
  };
  const backup = timedShell('tar -cf - -C "$DATA" objects -C "$DUMPS" dumps | "$NODE" "$SEALER" seal "$ARCHIVE"', env);
  const archiveBytes = Number(execFileSync('stat', ['-c', '%s', env.ARCHIVE], { encoding: 'utf8' }));
  mkdirSync(env.OUT);
  const restore = timedShell('"$NODE" "$SEALER" open "$ARCHIVE" "$SHA256" | tar -xf - -C "$OUT" && sync -f "$OUT"', { ...env, SHA256: backup.out.trim() });
  execFileSync('sync');
  const replace = timedShell('"$NODE" "$SEALER" open "$ARCHIVE" "$SHA256" | tar -xf - -C "$OUT" && sync -f "$OUT"', {
    ...env,
    SHA256: backup.out.trim(),
    OUT: replaceDir,
  });
  return { backupSeconds: backup.seconds, restoreSeconds: restore.seconds, replaceSeconds: replace.seconds, archiveBytes };
}

async function main(): Promise<void> {
  const port = await freePort();
  const dataDir = tempDir('bench-backup-');
  const copyDir = tempDir('bench-backup-cp-');
  const bareDir = tempDir('bench-backup-bare-');
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
    // The backup and the restore are durable when they end (the archive fsynced, the restored
    // files flushed): the same copy made durable (`sync -f`, one syncfs) is the like-for-like figure.
    execFileSync('sync', ['-f', copyDir]);
    const durableSeconds = Number(process.hrtime.bigint() - cpStarted) / 1e9;

    execFileSync('sync');
    const backup = await timedRun(baseUrl, token, service.pid!, () => api(baseUrl, token, 'POST', '/admin/backups'));
    const archive = /archive written: .*/.exec(backup.run.log)?.[0] ?? '';
    const name = /backup to (\S+)/.exec(backup.run.log)?.[1] ?? '';

    // The baseline between the service's backup and its restore: both meet the same machine.
    await extractDumps(join(dataDir, 'backups', name), keys.secretKey, bareDir);
    execFileSync('sync');
    const bare = bareBackupAndRestore(dataDir, bareDir, bareDir, copyDir);

    execFileSync('sync');
    const restore = await timedRun(baseUrl, token, service.pid!, () =>
      api(baseUrl, token, 'POST', '/admin/restores', {
        archive_name: name,
        confirm: `restore ${name}`,
        backup_key_b64: Buffer.from(keys.secretKey).toString('base64'),
      }),
    );
    const mib = (backup.run.total_bytes ?? 0) / MiB;
    const rate = (seconds: number) => `${(mib / seconds).toFixed(1)} MiB/s (${seconds.toFixed(1)} s)`;
    // The same bytes either way: the throughput ratio is the ratio of the times.
    const ratios = (seconds: number, bareSeconds: number) =>
      `ratio ${(bareSeconds / seconds).toFixed(2)} to the baseline (target >= 0.5); ${(cpSeconds / seconds).toFixed(2)} to cp -r, ${(durableSeconds / seconds).toFixed(2)} to cp -r + sync`;
    console.log(`  cp -r of the stored files     : ${(TOTAL_BYTES / MiB / cpSeconds).toFixed(1)} MiB/s (${cpSeconds.toFixed(1)} s)`);
    console.log(`  cp -r, then sync -f           : ${(TOTAL_BYTES / MiB / durableSeconds).toFixed(1)} MiB/s (${durableSeconds.toFixed(1)} s)`);
    console.log(`  baseline backup: tar | seal   : ${rate(bare.backupSeconds)}, ${bare.archiveBytes} bytes sealed`);
    console.log(`  baseline restore: open | tar -x, sync -f: ${rate(bare.restoreSeconds)} into an empty directory`);
    console.log(`  baseline restore over the files: ${rate(bare.replaceSeconds)} (tar -x replacing a copy of the stored files)`);
    console.log(
      `  backup  (${backup.run.object_count} entries, ${mib.toFixed(0)} MiB): ${rate(backup.seconds)}  ${ratios(backup.seconds, bare.backupSeconds)}`,
    );
    console.log(`    ${archive}`);
    // The service's restore replaces the stored files: the like-for-like baseline is tar replacing them too.
    console.log(`  restore (verify + apply)      : ${rate(restore.seconds)}  ${ratios(restore.seconds, bare.replaceSeconds)}`);
    console.log(`    ratio ${(bare.restoreSeconds / restore.seconds).toFixed(2)} to the baseline restoring into an empty directory`);
    console.log(`  peak RSS growth: backup ${backup.rssGrowth.toFixed(1)} MiB, restore ${restore.rssGrowth.toFixed(1)} MiB (target < 256 MiB)`);
    console.log(
      `  load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} on ${cpus().length} CPUs`,
    );
    // The runs' logs are timestamped: where the time goes beyond the archive itself.
    if (process.env.BENCH_SHOW_LOGS) console.log(`  backup log:\n${backup.run.log}\n  restore log:\n${restore.run.log}`);
  } finally {
    service.kill('SIGTERM');
    rmSync(copyDir, { recursive: true, force: true });
    rmSync(bareDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
