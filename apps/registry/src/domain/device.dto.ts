import type { Device } from '@app/contracts';
import type { DeviceEntity } from '../entities/device.entity.js';

/** DECISIONS "Devices": the record as the API shows it. */
export function toDeviceDto(device: DeviceEntity): Device {
  return {
    hwid: device.hwid,
    status: device.status,
    tags: [...device.tags],
    attributes: device.attributes,
    keys: [...device.keys],
    has_keys: device.hasKeys,
    created_at: device.createdAt.toISOString(),
    updated_at: device.updatedAt.toISOString(),
    last_seen_at: device.lastSeenAt ? device.lastSeenAt.toISOString() : null,
    last_fw_version: device.lastFwVersion,
  };
}
