import { type DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import type { AppName } from '@app/contracts';
import {
  type AppDatabaseOptions,
  createJobQueue,
  createMailer,
  createMessageBus,
  createObjectStore,
  JobQueue,
  Mailer,
  MessageBus,
  ObjectStore,
  openAppDatabase,
  type ServiceConfig,
} from '@app/infra';
import { DataSource } from 'typeorm';
import { APP_NAME, SERVICE_CONFIG } from './tokens.js';

export interface InfraModuleOptions {
  readonly app: AppName;
  readonly config: ServiceConfig;
  /** Apps that own tables pass their schema, entities and migrations. */
  readonly database?: AppDatabaseOptions;
}

/**
 * Gives an app its infrastructure: config, message bus, object store, job queue, mailer and
 * (when it owns tables) its DataSource. Which adapter runs is decided by the config alone.
 */
@Global()
@Module({})
export class InfraModule {
  static forApp(options: InfraModuleOptions): DynamicModule {
    const { config, app } = options;
    const providers: Provider[] = [
      { provide: SERVICE_CONFIG, useValue: config },
      { provide: APP_NAME, useValue: app },
      { provide: MessageBus, useFactory: () => createMessageBus(config, app) },
      { provide: ObjectStore, useFactory: () => createObjectStore(config) },
      { provide: JobQueue, useFactory: () => createJobQueue(config) },
      { provide: Mailer, useFactory: () => createMailer(config) },
    ];
    if (options.database) {
      const database = options.database;
      providers.push({ provide: DataSource, useFactory: () => openAppDatabase(config, database) });
    }
    return {
      module: InfraModule,
      providers,
      exports: providers.map((p) => (typeof p === 'function' ? p : (p as { provide: unknown }).provide)) as never[],
    };
  }
}
