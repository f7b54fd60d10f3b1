import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { BACKEND_APPS } from '@app/contracts';
import { acquireDataDirLock, closeDatabases, closeMessageBuses, JsonLogger, loadConfig, type ServiceConfig, withStandaloneBackupKey } from '@app/infra';
import { startBackendApp } from '@app/platform';
import { startGateway } from '../../gateway/src/start-gateway.js';
import { BACKEND_MODULES } from './app-modules.js';

export interface StandaloneService {
  readonly config: ServiceConfig;
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The whole service in one process: every app on the in-process bus, the embedded database
 * and files under DATA_DIR, the in-process job runner and the mail outbox. The same modules
 * run as separate processes in distributed mode; only the adapters differ.
 */
export async function startStandalone(env: NodeJS.ProcessEnv = process.env, options: { port?: number } = {}): Promise<StandaloneService> {
  let config = loadConfig(env);
  const logger = new JsonLogger('standalone');
  const releaseLock: () => void = config.databaseUrl ? () => undefined : acquireDataDirLock(config.dataDir);
  // Closed in this order: the gateway first (no new requests), then the apps in BACKEND_APPS
  // order, which lists producers (firmware) before the apps they report to (registry, admin)
  // and the worker last, so final batches (sightings, audit, mail) still find their consumer.
  const contexts: INestApplicationContext[] = [];
  try {
    // Backups work with no setting: on the local backend without BACKUP_PUBLIC_KEY, archives
    // are encrypted to a key pair made once under DATA_DIR (docs/operations.md "Backups and restores").
    const backupKey = await withStandaloneBackupKey(config);
    config = backupKey.config;
    const generated = backupKey.generated;
    if (generated) {
      logger.write(
        generated.created ? 'warn' : 'info',
        'backups are encrypted to the key pair this service generated: keep a copy of its secret key off this machine',
        {
          secret_key_file: generated.secretKeyFile,
          public_key: generated.publicKey,
          created: generated.created,
        },
      );
      if (generated.readableByOthers)
        logger.warn('the backup secret key file may be read by others than its owner: chmod 600 it', { secret_key_file: generated.secretKeyFile });
    }
    // One app after the other: Nest writes its start-up lines through one process-wide logger,
    // which each app's start points at that app's logger; started together, every app's lines
    // carried the name of the app created last.
    for (const app of BACKEND_APPS) contexts.push(await startBackendApp(app, BACKEND_MODULES[app].module, config));
    const gateway = await startGateway(config, options.port ?? config.port);
    contexts.unshift(gateway.app);
    logger.info('ready', { port: gateway.port, data_dir: config.dataDir, startup_ms: Math.round(process.uptime() * 1000) });
    let closed = false;
    return {
      config,
      port: gateway.port,
      url: `http://127.0.0.1:${gateway.port}`,
      async close() {
        if (closed) return;
        closed = true;
        for (const context of contexts) await context.close();
        await closeMessageBuses();
        await closeDatabases();
        releaseLock();
      },
    };
  } catch (err) {
    for (const context of contexts) await context.close().catch(() => undefined);
    await closeDatabases().catch(() => undefined);
    releaseLock();
    throw err;
  }
}
