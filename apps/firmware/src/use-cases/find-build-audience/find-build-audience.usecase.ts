import { Inject, Injectable } from '@nestjs/common';
import { type BuildAudience, type DeviceAudience, FirmwareErrors } from '@app/contracts';
import { DeviceDirectory } from '@app/platform';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { UNDER_ROLLOUT } from '../../domain/rollout.js';
import { audienceOf } from '../../update-check/selection.js';
import type { FindBuildAudienceCommand } from './find-build-audience.command.js';

const NO_DEVICES: DeviceAudience = { devices: 0, neverCheckedIn: 0, items: [] };

/**
 * Who the update check offers a build to now (docs/api.md "Rollouts"): the rule is the update
 * check's own (audienceOf), the devices are the registry's count of the known, active devices
 * that rule selects, on the build's product line, whose last reported version is older than
 * the build (the same version order key), plus those that never checked in.
 */
@Injectable()
export class FindBuildAudienceUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(DeviceDirectory) private readonly devices: DeviceDirectory,
  ) {}

  async execute(command: FindBuildAudienceCommand): Promise<BuildAudience> {
    const { customerId, limit, offset } = command;
    const build = await this.store.repos.builds.findById({ customerId, id: command.buildId });
    if (!build) throw FirmwareErrors.build_not_found();
    const rollout = command.asGeneralRelease ? null : await this.store.repos.rollouts.latestOfBuild({ customerId, buildId: build.id });
    const governing = rollout && UNDER_ROLLOUT.includes(rollout.state) ? rollout : null;
    // Under a rollout the devices are the rollout's whole audience (the build's own rule); how many its stages reach now is the rollout's view.
    const audience = audienceOf(command.asGeneralRelease ? { ...build, generalRelease: true } : build);
    const sharing = audience.rule === 'devices_sharing_tag';
    const reachesDevices = audience.rule !== 'nobody' && (!sharing || audience.tags.length > 0);
    const found = reachesDevices
      ? await this.devices.audience({
          customerId,
          tags: sharing ? audience.tags : null,
          hwName: build.hwName,
          hwVersion: build.hwVersion,
          fwName: build.fwName,
          versionKey: build.versionKey.toString('hex'),
          limit,
          offset,
        })
      : NO_DEVICES;
    return {
      build_id: build.id,
      rule: governing && audience.rule !== 'nobody' ? 'rollout' : audience.rule,
      unknown_devices: !governing && audience.rule === 'every_caller',
      tags: sharing ? [...audience.tags] : [],
      devices: found.devices,
      never_checked_in: found.neverCheckedIn,
      items: found.items.map((d) => ({ hwid: d.hwid, last_fw_version: d.lastFwVersion, last_seen_at: d.lastSeenAt })),
      next_offset: offset + found.items.length < found.devices && found.items.length > 0 ? offset + found.items.length : null,
    };
  }
}
