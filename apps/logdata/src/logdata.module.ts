import { type DynamicModule, Module } from '@nestjs/common';
import type { AppDatabaseOptions, ServiceConfig } from '@app/infra';
import { appDataController, healthController, InfraModule } from '@app/platform';
import { LOGDATA_APP_DATA } from './logdata.app-data.js';
import { LogdataController } from './controllers/logdata.controller.js';
import { LogFileEntity } from './entities/log-file.entity.js';
import { LogdataSchema1763700000000 } from './migrations/1763700000000-logdata-schema.js';
import { LogFileObjectKey1764700000000 } from './migrations/1764700000000-log-file-object-key.js';
import { LogFileChecks1765400000000 } from './migrations/1765400000000-log-file-checks.js';
import { LogdataStore } from './repositories/logdata.store.js';
import { CountLogFilesUseCase } from './use-cases/count-log-files/count-log-files.usecase.js';
import { EraseCustomerUseCase } from './use-cases/erase-customer/erase-customer.usecase.js';
import { FindOwnedObjectsUseCase } from './use-cases/find-owned-objects/find-owned-objects.usecase.js';
import { ObjectOwnershipController } from './controllers/object-ownership.controller.js';
import { ListLogFilesUseCase } from './use-cases/list-log-files/list-log-files.usecase.js';
import { ReadLogFileUseCase } from './use-cases/read-log-file/read-log-file.usecase.js';
import { RecordLogFileDownloadUseCase } from './use-cases/record-log-file-download/record-log-file-download.usecase.js';
import { UploadLogFileUseCase } from './use-cases/upload-log-file/upload-log-file.usecase.js';

export const LOGDATA_DATABASE = {
  schema: 'logdata',
  entities: [LogFileEntity],
  migrations: [LogdataSchema1763700000000, LogFileObjectKey1764700000000, LogFileChecks1765400000000],
} satisfies AppDatabaseOptions;

/** The app's own providers (infrastructure comes from InfraModule); tests compose them with test adapters. */
export const LOGDATA_PROVIDERS = [
  LogdataStore,
  UploadLogFileUseCase,
  ReadLogFileUseCase,
  ListLogFilesUseCase,
  CountLogFilesUseCase,
  EraseCustomerUseCase,
  FindOwnedObjectsUseCase,
  RecordLogFileDownloadUseCase,
];
/** Every message and event the app answers is declared in these controllers. */
export const LOGDATA_CONTROLLERS = [LogdataController, ObjectOwnershipController];

@Module({})
export class LogdataModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: LogdataModule,
      imports: [InfraModule.forApp({ app: 'logdata', config, database: LOGDATA_DATABASE })],
      controllers: [...LOGDATA_CONTROLLERS, healthController('logdata'), appDataController(LOGDATA_APP_DATA)],
      providers: LOGDATA_PROVIDERS,
    };
  }
}
