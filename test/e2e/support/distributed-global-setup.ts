// Must stay the first import: lets this CommonJS-loaded file resolve `.js` and `@app/*` like jest does.
import './resolve-hook.cjs';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Server, type S3TestServer } from '../../../libs/testing/src/s3-server.js';
import { generateBackupKeyPair } from '../../../libs/infra/src/backup/backup-archive.js';
import { DISTRIBUTED_APPS, type DistributedApp, runtimeSettingsEnv } from './constants.js';
import distributedGlobalTeardown from './distributed-global-teardown.js';
import { startMaildirSink, type MaildirSink } from './maildir-sink.js';
import {
  appLogFile,
  claimRedisDatabase,
  createDatabase,
  freePort,
  HEALTH_PORTS_VARIABLE,
  randomHex,
  spawnApp,
  startNats,
  waitForStatusOk,
  writeStackState,
} from './stack.js';

/** What the teardown (same process, same global object) needs to stop. */
export interface DistributedHandles {
  runId: string;
  stateDir: string;
  database?: { name: string; url: string };
  redis?: { db: number; url: string };
  s3?: S3TestServer;
  backupS3?: S3TestServer;
  mail?: MaildirSink;
  nats?: ChildProcess | null;
  apps: Map<DistributedApp, ChildProcess>;
}

declare global {
  var __E2E_DISTRIBUTED__: DistributedHandles | undefined;
}

const STARTUP_TIMEOUT_MS = Number(process.env.E2E_STARTUP_TIMEOUT_MS ?? 60_000);

/**
 * Starts the distributed runtime once for the e2e-distributed project: a throwaway
 * PostgreSQL database, s3rver, an SMTP sink writing .eml files, a Redis database and a NATS
 * server of its own, then the seven app processes from dist/. Facts for the tests go into
 * process.env (E2E_*); handles stay on globalThis for the teardown.
 */
export default async function distributedGlobalSetup(): Promise<void> {
  const runId = randomHex(4);
  const stateDir = mkdtempSync(join(tmpdir(), `fds-e2e-${runId}-`));
  const logDir = join(stateDir, 'logs');
  const mailDir = join(stateDir, 'mail');
  mkdirSync(logDir, { recursive: true });
  const handles: DistributedHandles = { runId, stateDir, apps: new Map() };
  globalThis.__E2E_DISTRIBUTED__ = handles;

  try {
    handles.database = await createDatabase();
    handles.redis = await claimRedisDatabase(runId);
    handles.s3 = await startS3Server({ bucket: `e2e-${runId}` });
    // The off-site backup bucket: a store of its own, as in production.
    handles.backupS3 = await startS3Server({ bucket: `e2e-backups-${runId}` });
    const backupKeys = await generateBackupKeyPair();
    const backupEnv: Record<string, string> = {
      BACKUP_PUBLIC_KEY: backupKeys.publicKey,
      BACKUP_S3_ENDPOINT: handles.backupS3.env.S3_ENDPOINT,
      BACKUP_S3_BUCKET: handles.backupS3.env.S3_BUCKET,
      BACKUP_S3_REGION: handles.backupS3.env.S3_REGION,
      BACKUP_S3_ACCESS_KEY_ID: handles.backupS3.env.S3_ACCESS_KEY_ID,
      BACKUP_S3_SECRET_ACCESS_KEY: handles.backupS3.env.S3_SECRET_ACCESS_KEY,
      BACKUP_S3_FORCE_PATH_STYLE: 'true',
    };
    handles.mail = await startMaildirSink(mailDir);
    const natsDir = join(stateDir, 'nats');
    const natsLog = join(logDir, 'nats-server.log');
    const nats = await startNats(natsDir, natsLog);
    handles.nats = nats.process;

    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const downloadSecret = randomHex(32);
    const metricsToken = `metrics-${randomHex(16)}`;
    // A health-listener port per process (the update-check role's too, which a test starts).
    const healthPorts: Record<string, number> = {};
    for (const name of [...DISTRIBUTED_APPS, 'firmware-update-check']) if (name !== 'gateway') healthPorts[name] = await freePort();
    const appEnv: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? stateDir,
      TZ: 'UTC',
      DATABASE_URL: handles.database.url,
      NATS_URL: nats.url,
      REDIS_URL: handles.redis.url,
      ...handles.s3.env,
      SMTP_URL: handles.mail.url,
      DOWNLOAD_LINK_SECRET: downloadSecret,
      ...runtimeSettingsEnv({ port, baseUrl, metricsToken }),
      DATA_DIR: join(stateDir, 'data'),
      ...backupEnv,
      // No listener unless a port is given (spawnApp gives each app its own from E2E_HEALTH_PORTS).
      HEALTH_PORT: '0',
      [HEALTH_PORTS_VARIABLE]: JSON.stringify(healthPorts),
    };

    for (const app of DISTRIBUTED_APPS) handles.apps.set(app, spawnApp(app, appEnv, logDir));
    writeStackState(stateDir, {
      runId,
      baseUrl,
      logDir,
      appEnv,
      pids: Object.fromEntries([...handles.apps].map(([app, child]) => [app, child.pid!])),
      ...(nats.process?.pid && nats.port ? { nats: { pid: nats.process.pid, port: nats.port, dir: natsDir, logFile: natsLog } } : {}),
    });

    const started = Date.now();
    await waitForStatusOk(baseUrl, STARTUP_TIMEOUT_MS, handles.apps, logDir);

    Object.assign(process.env, {
      E2E_BASE_URL: baseUrl,
      E2E_MAIL_DIR: mailDir,
      E2E_DOWNLOAD_SECRET: downloadSecret,
      E2E_METRICS_TOKEN: metricsToken,
      [HEALTH_PORTS_VARIABLE]: JSON.stringify(healthPorts),
      E2E_LOG_DIR: logDir,
      E2E_STATE_DIR: stateDir,
      E2E_DATABASE_URL: handles.database.url,
      E2E_BACKUP_ENV: JSON.stringify(backupEnv),
      E2E_BACKUP_SECRET_KEY: backupKeys.secretKey,
      E2E_PIDS: JSON.stringify(Object.fromEntries([...handles.apps].map(([app, child]) => [app, child.pid]))),
    });
    process.stdout.write(`\ne2e-distributed: stack up in ${Date.now() - started} ms at ${baseUrl}; logs in ${logDir}\n`);
  } catch (err) {
    const logs = DISTRIBUTED_APPS.map((app) => `  ${appLogFile(logDir, app)}`).join('\n');
    process.stderr.write(`\ne2e-distributed: the stack did not start. App logs:\n${logs}\n  ${join(logDir, 'nats-server.log')}\n`);
    await distributedGlobalTeardown().catch(() => undefined);
    throw err;
  }
}
