import { Inject, Injectable } from '@nestjs/common';
import { type Device, RegistryErrors } from '@app/contracts';
import { toDeviceView } from '../../domain/device-view.js';
import { RegistryStore } from '../../repositories/registry.store.js';
import { DeviceChanges } from '../../services/device-changes.js';
import type { CreateDeviceCommand } from './create-device.command.js';

/** Registers a device; the primary key decides between two concurrent creations (409 for the loser). */
@Injectable()
export class CreateDevice {
  constructor(
    @Inject(RegistryStore) private readonly store: RegistryStore,
    @Inject(DeviceChanges) private readonly changes: DeviceChanges,
  ) {}

  async execute(command: CreateDeviceCommand): Promise<Device> {
    const { customerId, hwid, tags, attributes, keys } = command;
    const device = await this.store.transaction(async ({ devices, outbox }) => {
      const created = await devices.insert({ customerId, hwid, tags, attributes, keys });
      if (!created) throw RegistryErrors.device_conflict();
      const view = toDeviceView(created);
      // In the same transaction: the device and its audit entry are stored together or not at all.
      await this.changes.audit(outbox, command.ctx, { action: 'device.create', targetType: 'device', targetId: hwid, before: null, after: view });
      return view;
    });
    this.changes.deviceChanged(customerId, hwid); // a cached "no such device" must go
    return device;
  }
}
