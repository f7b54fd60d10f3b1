import { Inject, Injectable } from '@nestjs/common';
import { RegistryErrors, type UpdatePreview, rolloutBucket } from '@app/contracts';
import { DeviceDirectory } from '@app/platform';
import { UpdateCheckService } from '../../update-check/update-check.service.js';
import type { PreviewUpdateCommand } from './preview-update.command.js';

const WITHDRAWN = 'a withdrawn device is treated as an unknown one: general releases only';
const LINE_UNKNOWN = 'the device has not reported its product line and version yet: give hw_name, hw_version, fw_name and fw_version';

/**
 * What the update check naming this device answers now (docs/api.md "Rollouts"): for the
 * product line and version in the query, else those of the device's last check; the items come
 * from UpdateCheckService itself (same index, rules and answer), and no sighting is recorded.
 */
@Injectable()
export class PreviewUpdateUseCase {
  constructor(
    @Inject(DeviceDirectory) private readonly devices: DeviceDirectory,
    @Inject(UpdateCheckService) private readonly updateCheck: UpdateCheckService,
  ) {}

  async execute(command: PreviewUpdateCommand): Promise<UpdatePreview> {
    const { customerId, hwid, query } = command;
    const device = await this.devices.profile(customerId, hwid);
    if (!device) throw RegistryErrors.device_not_found();
    const last = device.lastSeen;
    const hw_name = query.hw_name ?? last?.hwName ?? undefined;
    const hw_version = query.hw_version ?? last?.hwVersion ?? undefined;
    const fw_name = query.fw_name ?? last?.fwName ?? undefined;
    const fw_version = query.fw_version ?? last?.fwVersion ?? undefined;
    const withdrawn = device.status !== 'active';
    const base = { hwid, status: device.status, last_seen_at: last?.at ?? null };
    if (hw_name === undefined || hw_version === undefined || fw_name === undefined || fw_version === undefined) {
      return { ...base, check: null, reason: 'product_line_unknown', message: LINE_UNKNOWN, items: [] };
    }
    const check = { hw_name, hw_version, fw_name, fw_version };
    const items = await this.updateCheck.preview(
      customerId,
      check,
      { type: query.type, latest: query.latest },
      withdrawn ? null : { tags: device.tags, bucket: rolloutBucket(hwid) },
    );
    return {
      ...base,
      check: { ...check, type: query.type ?? 'AFI', latest: query.latest === true },
      reason: withdrawn ? 'device_withdrawn' : null,
      message: withdrawn ? WITHDRAWN : null,
      items,
    };
  }
}
