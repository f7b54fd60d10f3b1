import type { BackendApp } from '@app/contracts';
import type { AppDatabaseOptions } from '@app/infra';
import type { AppModuleFactory } from '@app/platform';
import { ADMIN_DATABASE, AdminModule } from '../../admin/src/admin.module.js';
import { FIRMWARE_DATABASE, FirmwareModule } from '../../firmware/src/firmware.module.js';
import { IDENTITY_DATABASE, IdentityModule } from '../../identity/src/identity.module.js';
import { LOGDATA_DATABASE, LogdataModule } from '../../logdata/src/logdata.module.js';
import { REGISTRY_DATABASE, RegistryModule } from '../../registry/src/registry.module.js';
import { WORKER_DATABASE, WorkerModule } from '../../worker/src/worker.module.js';

/** Every backend app: how to build its module and which schema it owns. */
export const BACKEND_MODULES: Record<BackendApp, { readonly module: AppModuleFactory; readonly database: AppDatabaseOptions }> = {
  identity: { module: (config) => IdentityModule.register(config), database: IDENTITY_DATABASE },
  logdata: { module: (config) => LogdataModule.register(config), database: LOGDATA_DATABASE },
  admin: { module: (config) => AdminModule.register(config), database: ADMIN_DATABASE },
  registry: { module: (config) => RegistryModule.register(config), database: REGISTRY_DATABASE },
  firmware: { module: (config) => FirmwareModule.register(config), database: FIRMWARE_DATABASE },
  worker: { module: (config) => WorkerModule.register(config), database: WORKER_DATABASE },
};
