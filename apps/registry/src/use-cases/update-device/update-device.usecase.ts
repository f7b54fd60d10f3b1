import { Inject, Injectable } from '@nestjs/common';
import { type Device, RegistryErrors } from '@app/contracts';
import { sameJson, sameList } from '../../domain/device-values.js';
import { toDeviceView } from '../../domain/device-view.js';
import { RegistryStore } from '../../repositories/registry.store.js';
import { DeviceChanges } from '../../services/device-changes.js';
import type { UpdateDeviceCommand } from './update-device.command.js';

/** Replaces attributes and/or keys; a request that changes nothing writes nothing (updated_at stays). */
@Injectable()
export class UpdateDevice {
  constructor(
    @Inject(RegistryStore) private readonly store: RegistryStore,
    @Inject(DeviceChanges) private readonly changes: DeviceChanges,
  ) {}

  async execute(command: UpdateDeviceCommand): Promise<Device> {
    const { customerId, hwid } = command;
    return this.store.transaction(async ({ devices, outbox }) => {
      const current = await devices.find({ customerId, hwid }, { lock: true });
      if (!current) throw RegistryErrors.device_not_found();
      const attributes = command.attributes !== undefined && !sameJson(command.attributes, current.attributes) ? command.attributes : undefined;
      const keys = command.keys !== undefined && !sameList(command.keys, current.keys) ? command.keys : undefined;
      if (attributes === undefined && keys === undefined) return toDeviceView(current);
      const after = toDeviceView(await devices.update({ customerId, hwid, attributes, keys }));
      await this.changes.audit(outbox, command.ctx, { action: 'device.update', targetType: 'device', targetId: hwid, before: toDeviceView(current), after });
      return after;
    });
  }
}
