import type { Device } from '@app/contracts';
import type { DeviceRecord } from './device.js';

/** The device record as the API shows it (the contract's Device: RFC 3339 strings, snake_case). */
export function toDeviceView(device: DeviceRecord): Device {
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
