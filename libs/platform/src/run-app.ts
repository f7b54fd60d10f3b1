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
  MessageBus,
  type MetricSource,
  processMetrics,
  registerAppMetrics,
  type ServiceConfig,
} from '@app/infra';
import { DataSource } from 'typeorm';
import { AppProbes, databaseAnswers, type ReadinessCheck } from './probes/app-probes.js';
import { DEFAULT_HEALTH_PORT, startHealthListener } from './probes/health-listener.js';
import { ServiceErrorRpcFilter } from './rpc-exception.filter.js';

/** A backend app's root module, built from the config (adapters are chosen there). */
export type AppModuleFactory = (config: ServiceConfig) => DynamicModule;

/** How a process of an app is probed and named in metrics. */
export interface AppRunOptions {
  /** Its name in metrics and probes (default: the app; the update-check role is `firmware-update-check`). */
  readonly source?: MetricSource;
  /**
   * Whether readiness waits for the database (default true). The update-check role answers
   * from its in-memory indexes, kept fresh over the bus: its readiness is the bus alone, so a
   * database failover does not take it out of service.
   */
  readonly readinessNeedsDatabase?: boolean;
}

/** Starts one backend app listening on the bus (NATS or in-process, by config); `probes` learn when it is up. */
export async function startBackendApp(
  app: BackendApp,
  moduleFactory: AppModuleFactory,
  config: ServiceConfig,
  probes?: { readonly probes: AppProbes; readonly readinessNeedsDatabase: boolean },
): Promise<INestMicroservice> {
  const logger = new JsonLogger(app);
  const strategy = createMessageServer(config, app);
  const microservice = await NestFactory.createMicroservice(moduleFactory(config), { strategy, logger });
  microservice.useGlobalFilters(new ServiceErrorRpcFilter());
  await microservice.listen();
  logger.info('listening', { transport: config.natsUrl ? 'nats' : 'in-process', node: process.version });
  if (probes) probes.probes.markStarted(readinessChecks(microservice, strategy, probes.readinessNeedsDatabase));
  return microservice;
}

/**
 * What an app's readiness checks: its subscriptions' connection (the Nest server's) and the
 * connection it sends and receives broadcasts on, and the database when it has one and needs it.
 */
function readinessChecks(microservice: INestMicroservice, strategy: object, needsDatabase: boolean): Record<string, ReadinessCheck> {
  const bus = microservice.get(MessageBus, { strict: false });
  const server = strategy as { connected?: boolean };
  const checks: Record<string, ReadinessCheck> = { bus: () => server.connected !== false && bus.connected() };
  if (needsDatabase) {
    const dataSource = optionalDataSource(microservice);
    if (dataSource) checks.database = () => databaseAnswers(dataSource);
  }
  return checks;
}

function optionalDataSource(microservice: INestMicroservice): DataSource | null {
  try {
    return microservice.get(DataSource, { strict: false });
  } catch {
    return null; // an app without tables
  }
}

/**
 * Entry point of `npm run start:<app>`: one app in its own process, on NATS, PostgreSQL,
 * Redis, S3 (and SMTP when set), with its health listener on HEALTH_PORT (default 9464; 0:
 * none) answering from before start-up. Exits non-zero with a clear line when misconfigured.
 */
export async function runDistributedApp(app: BackendApp, moduleFactory: AppModuleFactory, options: AppRunOptions = {}): Promise<void> {
  const logger = new JsonLogger(app);
  const signals = closeOnSignals(logger);
  try {
    const config = loadConfig();
    assertDistributedConfig(config, { database: true, nats: true, redis: true, s3: true, downloadSecret: true });
    const source = options.source ?? app;
    const probes = new AppProbes(source);
    processMetrics.declare(source);
    registerAppMetrics(source, config.buildCommit, () => probes.isReady());
    const port = config.healthPort ?? DEFAULT_HEALTH_PORT;
    const listener = port > 0 ? await startHealthListener(port, probes, config.metricsToken, logger) : null;
    const microservice = await startBackendApp(app, moduleFactory, config, { probes, readinessNeedsDatabase: options.readinessNeedsDatabase ?? true });
    signals.started(async () => {
      probes.markStopping();
      await microservice.close();
      await closeMessageBuses();
      await closeDatabases();
      listener?.close();
    });
  } catch (err) {
    logger.error(err instanceof Error ? err : new Error(String(err)), 'failed to start');
    process.exit(1);
  }
}
