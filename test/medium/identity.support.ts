/**
 * Medium-test support for the identity app: a throwaway PostgreSQL database (local server)
 * opened through the real database adapter, and the identity module wired with
 * in-memory fakes of the MessageBus and JobQueue ports and a hand-moved clock.
 */
import { Test, type TestingModule } from '@nestjs/testing';
import { JobQueue, MessageBus, openAppDatabase, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { DataSource } from 'typeorm';
import { IDENTITY_CONTROLLERS, IDENTITY_DATABASE, IDENTITY_PROVIDERS } from '../../apps/identity/src/identity.module.js';
import { IdentityStore } from '../../apps/identity/src/repositories/identity.store.js';
import { Clock } from '../../apps/identity/src/services/clock.js';
import { FakeBus, FakeClock, FakeJobQueue } from '../../apps/identity/test/fakes.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';

export type IdentityDatabase = Pick<Throwaway, 'config' | 'dispose'>;

/** CREATE DATABASE t_identity_<random> with a config (and temporary DATA_DIR) pointing at it. */
export function createIdentityDatabase(env: Record<string, string> = {}): Promise<IdentityDatabase> {
  return createThrowaway('identity', 'postgres', { PUBLIC_URL: 'https://fw.example.test', OPERATOR_DOMAIN: 'operator.example', ...env });
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
