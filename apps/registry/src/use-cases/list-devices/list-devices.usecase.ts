import { Inject, Injectable } from '@nestjs/common';
import type { DevicePage } from '@app/contracts';
import { toDeviceView } from '../../domain/device-view.js';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { ListDevicesCommand } from './list-devices.command.js';

/** GET /devices: one page, and the offset of the next one (null on the last page). */
@Injectable()
export class ListDevices {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(command: ListDevicesCommand): Promise<DevicePage> {
    const rows = await this.store.repos.deviceLists.list(command.filter);
    const items = rows.slice(0, command.limit).map(toDeviceView);
    return { items, next_offset: rows.length > command.limit ? command.filter.offset + items.length : null };
  }
}
