/**
 * Medium-test support for the admin app: its Nest module on a real database, with a fake bus
 * and job queue and the clock a test sets.
 */
import { Test, type TestingModule } from '@nestjs/testing';
import { createObjectStore, JobQueue, MessageBus, ObjectStore, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import type { RequestLogBatch } from '@app/contracts';
import { DataSource } from 'typeorm';
import { ADMIN_CONTROLLERS, ADMIN_PROVIDERS } from '../../apps/admin/src/admin.module.js';
import { Clock } from '../../apps/admin/src/services/clock.js';
import { StoreRequestLogCommand } from '../../apps/admin/src/use-cases/store-request-log/store-request-log.command.js';
import type { StoreRequestLog } from '../../apps/admin/src/use-cases/store-request-log/store-request-log.usecase.js';
import { FakeBus, FakeJobQueue } from '../../apps/identity/test/fakes.js';

export interface AdminModuleParts {
  readonly dataSource: DataSource;
  readonly config: ServiceConfig;
  readonly clock: { now(): Date };
  /** Default: a FakeBus that answers nothing. */
  readonly bus?: FakeBus;
  /** Default: a FakeJobQueue. */
  readonly jobs?: FakeJobQueue;
  /** The controllers too (default), or the providers only. */
  readonly controllers?: boolean;
}

/** The admin app's providers (and controllers) as the app wires them, on the parts given. */
export function compileAdminModule(parts: AdminModuleParts): Promise<TestingModule> {
  return Test.createTestingModule({
    controllers: parts.controllers === false ? [] : ADMIN_CONTROLLERS,
    providers: [
      ...ADMIN_PROVIDERS,
      { provide: DataSource, useValue: parts.dataSource },
      { provide: MessageBus, useValue: parts.bus ?? new FakeBus() },
      { provide: JobQueue, useValue: parts.jobs ?? new FakeJobQueue() },
      // The backups' object store (files under the temporary DATA_DIR; these tests run no backup).
      { provide: ObjectStore, useValue: createObjectStore(parts.config) },
      { provide: SERVICE_CONFIG, useValue: parts.config },
    ],
  })
    .overrideProvider(Clock)
    .useValue(parts.clock)
    .compile();
}

/**
 * A gateway's request-log batch as the admin app's handlers take it: with its id, stored once
 * (`storeOnce`, AdminMessages.storeRequestLog), or without one as earlier gateways sent it (`store`).
 */
export function requestLogIngest(storeRequestLog: StoreRequestLog) {
  return {
    storeOnce: (batch: RequestLogBatch & { batch_id: string }) => storeRequestLog.execute(StoreRequestLogCommand.create(batch)),
    store: async (batch: RequestLogBatch): Promise<void> => void (await storeRequestLog.execute(StoreRequestLogCommand.create({ entries: batch.entries }))),
  };
}
