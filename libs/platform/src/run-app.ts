import 'reflect-metadata';
import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { BackendApp } from '@app/contracts';
import {
  assertDistributedConfig,
  closeDatabases,
  closeMessageBuses,
  closeOnSignals,
  createMessageServer,
  JsonLogger,
  loadConfig,
  type ServiceConfig,
} from '@app/infra';
import { ServiceErrorRpcFilter } from './rpc-exception.filter.js';

/** A backend app's root module, built from the config (adapters are chosen there). */
export type AppModuleFactory = (config: ServiceConfig) => DynamicModule;

/** Starts one backend app listening on the bus (NATS or in-process, by config). */
export async function startBackendApp(app: BackendApp, moduleFactory: AppModuleFactory, config: ServiceConfig): Promise<INestMicroservice> {
  const logger = new JsonLogger(app);
  const microservice = await NestFactory.createMicroservice(moduleFactory(config), {
    strategy: createMessageServer(config, app),
    logger,
  });
  microservice.useGlobalFilters(new ServiceErrorRpcFilter());
  await microservice.listen();
  logger.info('listening', { transport: config.natsUrl ? 'nats' : 'in-process', node: process.version });
  return microservice;
}

/**
 * Entry point of `npm run start:<app>`: one app in its own process, on NATS, PostgreSQL,
 * Redis, S3 (and SMTP when set). Exits non-zero with a clear line when misconfigured.
 */
export async function runDistributedApp(app: BackendApp, moduleFactory: AppModuleFactory): Promise<void> {
  const logger = new JsonLogger(app);
  const signals = closeOnSignals(logger);
  try {
    const config = loadConfig();
    assertDistributedConfig(config, { database: true, nats: true, redis: true, s3: true, downloadSecret: true });
    const microservice = await startBackendApp(app, moduleFactory, config);
    signals.started(async () => {
      await microservice.close();
      await closeMessageBuses();
      await closeDatabases();
    });
  } catch (err) {
    logger.error(err instanceof Error ? err : new Error(String(err)), 'failed to start');
    process.exit(1);
  }
}
