import { Inject, Injectable } from '@nestjs/common';
import { type DeviceHistory, RegistryErrors } from '@app/contracts';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { GetDeviceHistoryCommand } from './get-device-history.command.js';

/** GET /devices/{hwid}/history: the versions a device reported, a row per change, newest first. */
@Injectable()
export class GetDeviceHistory {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(command: GetDeviceHistoryCommand): Promise<DeviceHistory> {
    const { customerId, hwid, limit, offset } = command;
    return this.store.transaction(async (repos) => {
      if (!(await repos.devices.lookup({ customerId, hwid }))) throw RegistryErrors.device_not_found();
      const rows = await repos.rolloutOffers.history({ customerId, hwid, limit: limit + 1, offset });
      return {
        items: rows
          .slice(0, limit)
          .map((r) => ({ fw_version: r.fwVersion, hw_name: r.hwName, hw_version: r.hwVersion, fw_name: r.fwName, seen_at: r.seenAt.toISOString() })),
        next_offset: rows.length > limit ? offset + limit : null,
      };
    });
  }
}
