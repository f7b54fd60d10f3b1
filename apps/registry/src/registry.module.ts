import { type DynamicModule, Module } from '@nestjs/common';
import type { AppDatabaseOptions, ServiceConfig } from '@app/infra';
import { appDataController, CustomerDirectory, healthController, InfraModule, outboxRelayProvider } from '@app/platform';
import { REGISTRY_APP_DATA } from './registry.app-data.js';
import { DevicesController } from './controllers/devices.controller.js';
import { DeviceReportsController } from './controllers/device-reports.controller.js';
import { RegistryDeviceReports1765200000000 } from './migrations/1765200000000-device-reports.js';
import { ListDeviceReports } from './use-cases/list-device-reports/list-device-reports.usecase.js';
import { SubmitDeviceReport } from './use-cases/submit-device-report/submit-device-report.usecase.js';
import { RegistryController } from './controllers/registry.controller.js';
import { RegistryRolloutsController } from './controllers/rollouts.controller.js';
import { CutRolloutStages } from './use-cases/cut-rollout-stages/cut-rollout-stages.usecase.js';
import { GetDeviceHistory } from './use-cases/get-device-history/get-device-history.usecase.js';
import { MeasureRollout } from './use-cases/measure-rollout/measure-rollout.usecase.js';
import { DeviceEntity, DeviceTagEntity } from './entities/device.entity.js';
import { RegistrySchema1763700000000 } from './migrations/1763700000000-registry-schema.js';
import { RegistryDevices1764000000000 } from './migrations/1764000000000-devices.js';
import { RegistryOutbox1764400000000 } from './migrations/1764400000000-registry-outbox.js';
import { RegistryDeviceProductLine1764600000000 } from './migrations/1764600000000-device-product-line.js';
import { RegistryRolloutOffers1765110000000 } from './migrations/1765110000000-rollout-offers.js';
import { RegistryDeviceHwidCheck1765400000000 } from './migrations/1765400000000-device-hwid-check.js';
import { RegistryStore } from './repositories/registry.store.js';
import { DeviceChanges } from './services/device-changes.js';
import { ChangeDeviceStatus } from './use-cases/change-device-status/change-device-status.usecase.js';
import { ChangeDeviceTags } from './use-cases/change-device-tags/change-device-tags.usecase.js';
import { CountDevices } from './use-cases/count-devices/count-devices.usecase.js';
import { EraseCustomer } from './use-cases/erase-customer/erase-customer.usecase.js';
import { CreateDevice } from './use-cases/create-device/create-device.usecase.js';
import { DeleteTag } from './use-cases/delete-tag/delete-tag.usecase.js';
import { CountTags } from './use-cases/count-tags/count-tags.usecase.js';
import { GetDevice } from './use-cases/get-device/get-device.usecase.js';
import { ImportDevices } from './use-cases/import-devices/import-devices.usecase.js';
import { ListDevices } from './use-cases/list-devices/list-devices.usecase.js';
import { LookupDevices } from './use-cases/lookup-devices/lookup-devices.usecase.js';
import { RecordSightings } from './use-cases/record-sightings/record-sightings.usecase.js';
import { RenameTag } from './use-cases/rename-tag/rename-tag.usecase.js';
import { FindAudience } from './use-cases/find-audience/find-audience.usecase.js';
import { SummarizeFleet } from './use-cases/summarize-fleet/summarize-fleet.usecase.js';
import { UpdateDevice } from './use-cases/update-device/update-device.usecase.js';

export const REGISTRY_DATABASE = {
  schema: 'registry',
  entities: [DeviceEntity, DeviceTagEntity],
  migrations: [
    RegistrySchema1763700000000,
    RegistryDevices1764000000000,
    RegistryOutbox1764400000000,
    RegistryDeviceProductLine1764600000000,
    RegistryRolloutOffers1765110000000,
    RegistryDeviceReports1765200000000,
    RegistryDeviceHwidCheck1765400000000,
  ],
} satisfies AppDatabaseOptions;

/** The app's own providers (infrastructure comes from InfraModule); tests compose them with test adapters. */
export const REGISTRY_PROVIDERS = [
  RegistryStore,
  outboxRelayProvider('registry'),
  DeviceChanges,
  ListDevices,
  GetDevice,
  CreateDevice,
  UpdateDevice,
  ChangeDeviceStatus,
  ChangeDeviceTags,
  ImportDevices,
  LookupDevices,
  CountTags,
  RenameTag,
  DeleteTag,
  CountDevices,
  EraseCustomer,
  RecordSightings,
  FindAudience,
  SummarizeFleet,
  CutRolloutStages,
  MeasureRollout,
  GetDeviceHistory,
  CustomerDirectory,
  SubmitDeviceReport,
  ListDeviceReports,
];
export const REGISTRY_CONTROLLERS = [DevicesController, RegistryController, RegistryRolloutsController, DeviceReportsController];

@Module({})
export class RegistryModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: RegistryModule,
      imports: [InfraModule.forApp({ app: 'registry', config, database: REGISTRY_DATABASE })],
      controllers: [...REGISTRY_CONTROLLERS, healthController('registry'), appDataController(REGISTRY_APP_DATA)],
      providers: REGISTRY_PROVIDERS,
    };
  }
}
