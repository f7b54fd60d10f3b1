import { Inject, Injectable } from '@nestjs/common';
import { type Device, type DeviceTags, RegistryErrors } from '@app/contracts';
import type { DeviceRecord } from '../../domain/device.js';
import { toDeviceView } from '../../domain/device-view.js';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { GetDeviceCommand } from './get-device.command.js';

/** A device of the caller's customer, whole or its tags only; 404 for an unknown HW id. */
@Injectable()
export class GetDevice {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(command: GetDeviceCommand): Promise<Device> {
    return toDeviceView(await this.find(command));
  }

  async tags(command: GetDeviceCommand): Promise<DeviceTags> {
    return { tags: [...(await this.find(command)).tags] };
  }

  private async find(command: GetDeviceCommand): Promise<DeviceRecord> {
    const device = await this.store.repos.devices.find({ customerId: command.customerId, hwid: command.hwid });
    if (!device) throw RegistryErrors.device_not_found();
    return device;
  }
}
