import { Inject, Injectable } from '@nestjs/common';
import { type Device, ServiceError } from '@app/contracts';
import { sameJson, sameList } from '../../domain/device-rules.js';
import { toDeviceDto } from '../../domain/device.dto.js';
import { DeviceRepository } from '../../repositories/device.repository.js';
import { DeviceNotifier } from '../../services/device-notifier.js';
import type { UpdateDeviceCommand } from './update-device.command.js';

/** Replaces attributes and/or keys; a request that changes nothing writes nothing (updated_at stays). */
@Injectable()
export class UpdateDevice {
  constructor(
    @Inject(DeviceRepository) private readonly repository: DeviceRepository,
    @Inject(DeviceNotifier) private readonly notifier: DeviceNotifier,
  ) {}

  async execute(command: UpdateDeviceCommand): Promise<Device> {
    const { customerId, hwid } = command;
    const outcome = await this.repository.transaction(async (tx) => {
      const current = await this.repository.find({ customerId, hwid }, tx, { lock: true });
      if (!current) throw ServiceError.notFound('device not found');
      const attributes = command.attributes !== undefined && !sameJson(command.attributes, current.attributes) ? command.attributes : undefined;
      const keys = command.keys !== undefined && !sameList(command.keys, current.keys) ? command.keys : undefined;
      if (attributes === undefined && keys === undefined) return { before: current, after: current };
      return { before: current, after: await this.repository.update({ customerId, hwid, attributes, keys }, tx) };
    });
    const after = toDeviceDto(outcome.after);
    if (outcome.after !== outcome.before) {
      this.notifier.audit(command.ctx, { action: 'device.update', targetType: 'device', targetId: hwid, before: toDeviceDto(outcome.before), after });
    }
    return after;
  }
}
