import { type DynamicModule, Module } from '@nestjs/common';
import type { AppDatabaseOptions, ServiceConfig } from '@app/infra';
import { healthController, InfraModule } from '@app/platform';
import { MailJobProcessor } from './mail/mail-job.processor.js';
import { StagingCleanup } from './staging/staging-cleanup.js';
import { WorkerSchema1763700000000 } from './migrations/1763700000000-worker-schema.js';

export const WORKER_DATABASE = { schema: 'worker', entities: [], migrations: [WorkerSchema1763700000000] } satisfies AppDatabaseOptions;

/** The app's own providers (infrastructure comes from InfraModule). */
export const WORKER_PROVIDERS = [MailJobProcessor, StagingCleanup];

/** Background work: registers the job handlers of this process on application bootstrap. */
@Module({})
export class WorkerModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [InfraModule.forApp({ app: 'worker', config, database: WORKER_DATABASE })],
      controllers: [healthController('worker')],
      providers: WORKER_PROVIDERS,
    };
  }
}
