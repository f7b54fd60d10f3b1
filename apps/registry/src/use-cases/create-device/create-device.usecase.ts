import { Inject, Injectable } from '@nestjs/common';
import { type Device, ServiceError } from '@app/contracts';
import { toDeviceDto } from '../../domain/device.dto.js';
import { DeviceRepository } from '../../repositories/device.repository.js';
import { DeviceNotifier } from '../../services/device-notifier.js';
import type { CreateDeviceCommand } from './create-device.command.js';

/** Registers a device; the primary key decides between two concurrent creations (409 for the loser). */
@Injectable()
export class CreateDevice {
  constructor(
    @Inject(DeviceRepository) private readonly repository: DeviceRepository,
    @Inject(DeviceNotifier) private readonly notifier: DeviceNotifier,
  ) {}

  async execute(command: CreateDeviceCommand): Promise<Device> {
    const { customerId, hwid, tags, attributes, keys } = command;
    const created = await this.repository.transaction((tx) => this.repository.insert({ customerId, hwid, tags, attributes, keys }, tx));
    if (!created) throw ServiceError.conflict('device already exists');
    const device = toDeviceDto(created);
    this.notifier.deviceChanged(customerId, hwid); // a cached "no such device" must go
    this.notifier.audit(command.ctx, { action: 'device.create', targetType: 'device', targetId: hwid, before: null, after: device });
    return device;
  }
}
