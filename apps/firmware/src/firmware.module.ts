import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import type { AppDatabaseOptions, ServiceConfig } from '@app/infra';
import { appDataController, CustomerDirectory, DeviceDirectory, DeviceSightings, healthController, InfraModule, outboxRelayProvider } from '@app/platform';
import { FIRMWARE_APP_DATA } from './firmware.app-data.js';
import { RolloutsController } from './controllers/rollouts.controller.js';
import { RolloutSteeringController } from './controllers/rollout-steering.controller.js';
import { FirmwareRollouts1765100000000 } from './migrations/1765100000000-rollouts.js';
import { RolloutEvaluator } from './rollouts/rollout-evaluator.js';
import { RolloutStages } from './rollouts/rollout-stages.js';
import { RolloutHaltNotice } from './rollouts/rollout-halt-notice.js';
import { RolloutSteering } from './rollouts/rollout-steering.js';
import { EvaluateRolloutsUseCase } from './use-cases/evaluate-rollouts/evaluate-rollouts.usecase.js';
import { ListRolloutDevicesUseCase } from './use-cases/list-rollout-devices/list-rollout-devices.usecase.js';
import { ListRolloutsUseCase } from './use-cases/list-rollouts/list-rollouts.usecase.js';
import { PreviewRolloutUseCase } from './use-cases/preview-rollout/preview-rollout.usecase.js';
import { ReadRolloutUseCase } from './use-cases/read-rollout/read-rollout.usecase.js';
import { StartRolloutUseCase } from './use-cases/start-rollout/start-rollout.usecase.js';
import { SteerRolloutUseCase } from './use-cases/steer-rollout/steer-rollout.usecase.js';
import { FindBuildAudienceUseCase } from './use-cases/find-build-audience/find-build-audience.usecase.js';
import { PreviewUpdateUseCase } from './use-cases/preview-update/preview-update.usecase.js';
import { FirmwareController } from './controllers/firmware.controller.js';
import { TagsController } from './controllers/tags.controller.js';
import { BuildEntity } from './entities/build.entity.js';
import { FirmwareSchema1763700000000 } from './migrations/1763700000000-firmware-schema.js';
import { FirmwareBuilds1764000000000 } from './migrations/1764000000000-firmware-builds.js';
import { FirmwareOutbox1764400000000 } from './migrations/1764400000000-firmware-outbox.js';
import { BuildObjectKeys1764700000000 } from './migrations/1764700000000-build-object-keys.js';
import { UpdateSigningKeys1765300000000 } from './migrations/1765300000000-update-signing-keys.js';
import type { FirmwareRole } from './firmware-role.js';
import { FirmwareStore } from './repositories/firmware.store.js';
import { FirmwareChanges } from './services/firmware-changes.js';
import { DeviceTagCounts } from './tags/device-tag-counts.js';
import { TagSync } from './tags/tag-sync.js';
import { BuildIndex } from './update-check/build-index.js';
import { UpdateCheckResponder } from './update-check/update-check.responder.js';
import { UpdateCheckService } from './update-check/update-check.service.js';
import { UpdateLinks } from './update-check/update-links.js';
import { AnswerSigner } from './update-check/answer-signer.js';
import { UpdateSigningKeys } from './update-check/update-signing-keys.js';
import { UpdateSigningController } from './controllers/update-signing.controller.js';
import { RotateUpdateSigningKeyUseCase } from './use-cases/rotate-update-signing-key/rotate-update-signing-key.usecase.js';
import { BuildTagsUseCase } from './use-cases/build-tags/build-tags.usecase.js';
import { ChangeBuildUseCase } from './use-cases/change-build/change-build.usecase.js';
import { CountBuildsUseCase } from './use-cases/count-builds/count-builds.usecase.js';
import { EraseCustomerUseCase } from './use-cases/erase-customer/erase-customer.usecase.js';
import { FindOwnedObjectsUseCase } from './use-cases/find-owned-objects/find-owned-objects.usecase.js';
import { ObjectOwnershipController } from './controllers/object-ownership.controller.js';
import { DeleteTagUseCase } from './use-cases/delete-tag/delete-tag.usecase.js';
import { ListBuildsUseCase } from './use-cases/list-builds/list-builds.usecase.js';
import { ListTagsUseCase } from './use-cases/list-tags/list-tags.usecase.js';
import { ParseBinaryUseCase } from './use-cases/parse-binary/parse-binary.usecase.js';
import { ReadBuildUseCase } from './use-cases/read-build/read-build.usecase.js';
import { RecordBuildDownloadUseCase } from './use-cases/record-build-download/record-build-download.usecase.js';
import { RenameTagUseCase } from './use-cases/rename-tag/rename-tag.usecase.js';
import { SetGeneralReleaseUseCase } from './use-cases/set-general-release/set-general-release.usecase.js';
import { UpdateBuildUseCase } from './use-cases/update-build/update-build.usecase.js';
import { UploadBuildUseCase } from './use-cases/upload-build/upload-build.usecase.js';

export const FIRMWARE_DATABASE = {
  schema: 'firmware',
  entities: [BuildEntity],
  migrations: [
    FirmwareSchema1763700000000,
    FirmwareBuilds1764000000000,
    FirmwareOutbox1764400000000,
    BuildObjectKeys1764700000000,
    FirmwareRollouts1765100000000,
    UpdateSigningKeys1765300000000,
  ],
} satisfies AppDatabaseOptions;

export { FIRMWARE_ROLES, firmwareRoleFromArgs, type FirmwareRole } from './firmware-role.js';

/**
 * Every message and event the firmware app answers, in one place, per role:
 * - `controllers`: @MessagePattern/@EventPattern handlers, one line each to a use case;
 * - `responders`: the public update check, `firmware.update-check` (UpdateCheckResponder), in
 *   both roles. It is served with MessageBus.serve, not a controller: it is the hottest path
 *   there is and uses no guard, pipe or interceptor, so it skips Nest's per-message pipeline
 *   (see update-check.responder.ts). A responder is a provider that starts serving on init.
 */
export const FIRMWARE_HANDLERS: Record<FirmwareRole, { readonly controllers: Type<unknown>[]; readonly responders: Type<unknown>[] }> = {
  all: {
    controllers: [
      FirmwareController,
      TagsController,
      ObjectOwnershipController,
      RolloutsController,
      RolloutSteeringController,
      UpdateSigningController,
      appDataController(FIRMWARE_APP_DATA),
    ],
    responders: [UpdateCheckResponder],
  },
  'update-check': { controllers: [], responders: [UpdateCheckResponder] },
};

/** What the update check needs (both roles), its responder included. */
export const UPDATE_CHECK_PROVIDERS: Provider[] = [
  FirmwareStore,
  BuildIndex,
  UpdateLinks,
  UpdateSigningKeys,
  AnswerSigner,
  CustomerDirectory,
  DeviceDirectory,
  DeviceSightings,
  UpdateCheckService,
  ...FIRMWARE_HANDLERS['update-check'].responders,
];
/** Everything else of the app: the use cases behind the controllers. */
export const FIRMWARE_PROVIDERS: Provider[] = [
  outboxRelayProvider('firmware'),
  FirmwareChanges,
  DeviceTagCounts,
  TagSync,
  ChangeBuildUseCase,
  UploadBuildUseCase,
  ParseBinaryUseCase,
  ListBuildsUseCase,
  ReadBuildUseCase,
  UpdateBuildUseCase,
  SetGeneralReleaseUseCase,
  BuildTagsUseCase,
  CountBuildsUseCase,
  EraseCustomerUseCase,
  FindOwnedObjectsUseCase,
  RecordBuildDownloadUseCase,
  ListTagsUseCase,
  RenameTagUseCase,
  DeleteTagUseCase,
  FindBuildAudienceUseCase,
  PreviewUpdateUseCase,
  RotateUpdateSigningKeyUseCase,
  RolloutStages,
  RolloutSteering,
  RolloutHaltNotice,
  StartRolloutUseCase,
  ReadRolloutUseCase,
  SteerRolloutUseCase,
  ListRolloutsUseCase,
  ListRolloutDevicesUseCase,
  PreviewRolloutUseCase,
  EvaluateRolloutsUseCase,
  RolloutEvaluator,
];

export function firmwareControllers(role: FirmwareRole): Type<unknown>[] {
  return FIRMWARE_HANDLERS[role].controllers;
}

@Module({})
export class FirmwareModule {
  static register(config: ServiceConfig, options: { role?: FirmwareRole } = {}): DynamicModule {
    const role = options.role ?? 'all';
    return {
      module: FirmwareModule,
      imports: [InfraModule.forApp({ app: 'firmware', config, database: FIRMWARE_DATABASE })],
      controllers: [...firmwareControllers(role), healthController('firmware')],
      providers: role === 'update-check' ? UPDATE_CHECK_PROVIDERS : [...UPDATE_CHECK_PROVIDERS, ...FIRMWARE_PROVIDERS],
    };
  }
}
