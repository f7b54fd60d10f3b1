import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import type { AppDatabaseOptions, ServiceConfig } from '@app/infra';
import { CustomerDirectory, DeviceDirectory, DeviceSightings, healthController, InfraModule } from '@app/platform';
import { FirmwareController } from './controllers/firmware.controller.js';
import { TagsController } from './controllers/tags.controller.js';
import { BuildEntity } from './entities/build.entity.js';
import { FirmwareSchema1763700000000 } from './migrations/1763700000000-firmware-schema.js';
import { FirmwareBuilds1764000000000 } from './migrations/1764000000000-firmware-builds.js';
import { BuildRepository } from './repositories/build.repository.js';
import { TagSyncRepository } from './repositories/tag-sync.repository.js';
import { FirmwareChanges } from './services/firmware-changes.js';
import { FirmwareService } from './services/firmware.service.js';
import { TagSync } from './tags/tag-sync.js';
import { TagsService } from './tags/tags.service.js';
import { BuildIndex } from './update-check/build-index.js';
import { UpdateCheckResponder } from './update-check/update-check.responder.js';
import { UpdateCheckService } from './update-check/update-check.service.js';
import { UpdateLinks } from './update-check/update-links.js';
import { ParseBinary } from './use-cases/parse-binary/parse-binary.usecase.js';
import { UploadBuild } from './use-cases/upload-build/upload-build.usecase.js';

export const FIRMWARE_DATABASE = {
  schema: 'firmware',
  entities: [BuildEntity],
  migrations: [FirmwareSchema1763700000000, FirmwareBuilds1764000000000],
} satisfies AppDatabaseOptions;

/**
 * What a firmware process serves:
 * - `all` (default): builds, tags API, counts and the update check;
 * - `update-check`: only the public update check (plus health), for a deployment that scales
 *   with device traffic (`npm run start:firmware-update-check`, k8s/firmware-update-check.yaml).
 * Both answer `firmware.update-check` in the same NATS queue group `firmware`, so each check
 * is answered once, by any of them.
 */
export type FirmwareRole = 'all' | 'update-check';
export const FIRMWARE_ROLES: readonly FirmwareRole[] = ['all', 'update-check'];

/** The update check's providers (both roles). */
export const UPDATE_CHECK_PROVIDERS: Provider[] = [BuildRepository, BuildIndex, UpdateLinks, CustomerDirectory, DeviceDirectory, DeviceSightings, UpdateCheckService, UpdateCheckResponder];
/** Everything else of the app. */
export const FIRMWARE_PROVIDERS: Provider[] = [FirmwareChanges, UploadBuild, ParseBinary, FirmwareService, TagSyncRepository, TagSync, TagsService];

/** The update check is served by UpdateCheckResponder (a provider), so its role has no controller of its own. */
export function firmwareControllers(role: FirmwareRole): Type<unknown>[] {
  return role === 'update-check' ? [] : [FirmwareController, TagsController];
}

/** `--role=<role>` among the process arguments (default `all`). */
export function firmwareRoleFromArgs(args: readonly string[]): FirmwareRole {
  const given = args.find((arg) => arg.startsWith('--role='))?.slice('--role='.length);
  if (given === undefined) return 'all';
  if (!(FIRMWARE_ROLES as readonly string[]).includes(given)) throw new Error(`unknown firmware role "${given}" (one of ${FIRMWARE_ROLES.join(', ')})`);
  return given as FirmwareRole;
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
