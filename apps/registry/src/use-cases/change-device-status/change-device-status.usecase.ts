import { Inject, Injectable } from '@nestjs/common';
import { type Device, RegistryErrors } from '@app/contracts';
import { toDeviceView } from '../../domain/device-view.js';
import { RegistryStore } from '../../repositories/registry.store.js';
import { DeviceChanges } from '../../services/device-changes.js';
import type { ChangeDeviceStatusCommand } from './change-device-status.command.js';

/**
 * Withdraws or reactivates a device. Idempotent: a device already in the wanted state is
 * answered as it is. A withdrawn device keeps everything (tags, attributes, keys, last seen).
 */
@Injectable()
export class ChangeDeviceStatus {
  constructor(
    @Inject(RegistryStore) private readonly store: RegistryStore,
    @Inject(DeviceChanges) private readonly changes: DeviceChanges,
  ) {}

  async execute(command: ChangeDeviceStatusCommand): Promise<Device> {
    const { customerId, hwid, status } = command;
    const outcome = await this.store.transaction(async ({ devices, outbox }) => {
      const current = await devices.find({ customerId, hwid }, { lock: true });
      if (!current) throw RegistryErrors.device_not_found();
      if (current.status === status) return { after: toDeviceView(current), changed: false };
      const after = toDeviceView(await devices.update({ customerId, hwid, status }));
      await this.changes.audit(outbox, command.ctx, {
        action: status === 'withdrawn' ? 'device.withdraw' : 'device.reactivate',
        targetType: 'device',
        targetId: hwid,
        before: toDeviceView(current),
        after,
      });
      return { after, changed: true };
    });
    if (outcome.changed) this.changes.deviceChanged(customerId, hwid);
    return outcome.after;
  }
}
