import { Inject, Injectable } from '@nestjs/common';
import { type Device, ServiceError } from '@app/contracts';
import { toDeviceDto } from '../../domain/device.dto.js';
import { DeviceRepository } from '../../repositories/device.repository.js';
import { DeviceNotifier } from '../../services/device-notifier.js';
import type { ChangeDeviceStatusCommand } from './change-device-status.command.js';

/**
 * Withdraws or reactivates a device. Idempotent: a device already in the wanted state is
 * answered as it is. A withdrawn device keeps everything (tags, attributes, keys, last seen).
 */
@Injectable()
export class ChangeDeviceStatus {
  constructor(
    @Inject(DeviceRepository) private readonly repository: DeviceRepository,
    @Inject(DeviceNotifier) private readonly notifier: DeviceNotifier,
  ) {}

  async execute(command: ChangeDeviceStatusCommand): Promise<Device> {
    const { customerId, hwid, status } = command;
    const outcome = await this.repository.transaction(async (tx) => {
      const current = await this.repository.find({ customerId, hwid }, tx, { lock: true });
      if (!current) throw ServiceError.notFound('device not found');
      if (current.status === status) return { before: current, after: current };
      return { before: current, after: await this.repository.update({ customerId, hwid, status }, tx) };
    });
    const after = toDeviceDto(outcome.after);
    if (outcome.after !== outcome.before) {
      this.notifier.deviceChanged(customerId, hwid);
      this.notifier.audit(command.ctx, {
        action: status === 'withdrawn' ? 'device.withdraw' : 'device.reactivate',
        targetType: 'device',
        targetId: hwid,
        before: toDeviceDto(outcome.before),
        after,
      });
    }
    return after;
  }
}
