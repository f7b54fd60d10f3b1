import { Inject, Injectable } from '@nestjs/common';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { CountDevicesCommand } from './count-devices.command.js';

/** Devices and distinct tags per customer; every requested customer gets an entry (zeros when it has no devices). */
@Injectable()
export class CountDevices {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(command: CountDevicesCommand): Promise<Record<string, { devices: number; tags: string[] }>> {
    const found = await this.store.repos.deviceLists.countsByCustomer(command.customerIds);
    const result: Record<string, { devices: number; tags: string[] }> = {};
    command.asked.forEach((id, i) => {
      result[id] = found.get(command.customerIds[i]) ?? { devices: 0, tags: [] };
    });
    return result;
  }
}
