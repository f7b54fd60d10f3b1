/**
 * Medium-test support for the identity app: a throwaway PostgreSQL database (local server)
 * opened through the real database adapter, and the identity module wired with
 * in-memory fakes of the MessageBus and JobQueue ports and a hand-moved clock.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { JobQueue, loadConfig, MessageBus, openAppDatabase, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { IDENTITY_CONTROLLERS, IDENTITY_DATABASE, IDENTITY_PROVIDERS } from '../../apps/identity/src/identity.module.js';
import { IdentityStore } from '../../apps/identity/src/repositories/identity.store.js';
import { Clock } from '../../apps/identity/src/services/clock.js';
import { FakeBus, FakeClock, FakeJobQueue } from '../../apps/identity/test/fakes.js';

const SERVER = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };

export interface IdentityDatabase {
  readonly config: ServiceConfig;
  dispose(): Promise<void>;
}

/** CREATE DATABASE t_identity_<random> with a config (and temporary DATA_DIR) pointing at it. */
export async function createIdentityDatabase(env: Record<string, string> = {}): Promise<IdentityDatabase> {
  const database = `t_identity_${randomBytes(6).toString('hex')}`;
  await serverQuery(`CREATE DATABASE ${database}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'identity-medium-'));
  const config = loadConfig({
    DATABASE_URL: `postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${database}`,
    DATA_DIR: dataDir,
    PUBLIC_URL: 'https://fw.example.test',
    OPERATOR_DOMAIN: 'operator.example',
    LOG_LEVEL: 'error',
    ...env,
  });
  return {
    config,
    async dispose() {
      await serverQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function serverQuery(sql: string): Promise<void> {
  const client = new pg.Client({ ...SERVER, database: 'postgres' });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface IdentityHarness {
  readonly moduleRef: TestingModule;
  readonly dataSource: DataSource;
  readonly store: IdentityStore;
  readonly bus: FakeBus;
  readonly jobs: FakeJobQueue;
  readonly clock: FakeClock;
  readonly config: ServiceConfig;
  get<T>(type: abstract new (...args: never[]) => T): T;
  close(): Promise<void>;
}

/**
 * One identity "replica": the app's controllers and providers on a DataSource (its own, opened
 * with openAppDatabase, unless one is passed) with fresh fakes. `init()` runs the start-up hooks
 * (key generation, provisioning) as the real app does.
 */
export async function startIdentity(config: ServiceConfig, options: { dataSource?: DataSource; clock?: FakeClock } = {}): Promise<IdentityHarness> {
  const dataSource = options.dataSource ?? (await openAppDatabase(config, IDENTITY_DATABASE));
  const bus = new FakeBus();
  const jobs = new FakeJobQueue();
  const clock = options.clock ?? new FakeClock();
  const moduleRef = await Test.createTestingModule({
    controllers: IDENTITY_CONTROLLERS,
    providers: [
      ...IDENTITY_PROVIDERS,
      { provide: DataSource, useValue: dataSource },
      { provide: MessageBus, useValue: bus },
      { provide: JobQueue, useValue: jobs },
      { provide: SERVICE_CONFIG, useValue: config },
    ],
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  await moduleRef.init();
  return {
    moduleRef,
    dataSource,
    store: moduleRef.get(IdentityStore),
    bus,
    jobs,
    clock,
    config,
    get: (type) => moduleRef.get(type as never),
    async close() {
      await moduleRef.close();
      if (!options.dataSource && dataSource.isInitialized) await dataSource.destroy();
    },
  };
}
