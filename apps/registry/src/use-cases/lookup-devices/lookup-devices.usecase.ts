import { Inject, Injectable } from '@nestjs/common';
import { type DeviceLookup, type DeviceProfile, isHwid } from '@app/contracts';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { LookupDevicesCommand } from './lookup-devices.command.js';

/**
 * Status and tags of devices, for the update check, and with its last check for the update
 * preview; null where there is no device (or a HW id no device can have).
 */
@Injectable()
export class LookupDevices {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  /** RegistryMessages.lookupDevice: a primary-key point lookup of the one HW id. */
  async one(command: LookupDevicesCommand): Promise<DeviceLookup | null> {
    const hwid = command.hwids[0];
    if (!isHwid(hwid)) return null;
    return this.store.repos.devices.lookup({ customerId: command.customerId, hwid });
  }

  /** RegistryMessages.lookupDevices: one query for the batch; answers in the order asked. */
  async many(command: LookupDevicesCommand): Promise<(DeviceLookup | null)[]> {
    const { customerId, hwids } = command;
    const valid = hwids.filter(isHwid);
    const found = valid.length ? await this.store.repos.devices.lookupMany({ customerId, hwids: valid }) : new Map<string, DeviceLookup>();
    return hwids.map((hwid) => (isHwid(hwid) ? (found.get(hwid) ?? null) : null));
  }

  /** RegistryMessages.deviceProfile: the device and what its last update check reported, by primary key. */
  async profile(command: LookupDevicesCommand): Promise<DeviceProfile | null> {
    const hwid = command.hwids[0];
    if (!isHwid(hwid)) return null;
    const device = await this.store.repos.rollouts.lastCheck({ customerId: command.customerId, hwid });
    if (!device) return null;
    const lastSeen =
      device.lastSeenAt && device.lastFwVersion !== null
        ? {
            at: device.lastSeenAt.toISOString(),
            fwVersion: device.lastFwVersion,
            hwName: device.line?.hwName ?? null,
            hwVersion: device.line?.hwVersion ?? null,
            fwName: device.line?.fwName ?? null,
          }
        : null;
    return { status: device.status, tags: device.tags, lastSeen };
  }
}
