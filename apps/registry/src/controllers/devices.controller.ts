import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type Device, type DeviceImportResult, DeviceMessages, type DevicePage, type DeviceTags, type FleetSummary, type MessageRequest } from '@app/contracts';
import { ChangeDeviceStatusCommand } from '../use-cases/change-device-status/change-device-status.command.js';
import { ChangeDeviceStatus } from '../use-cases/change-device-status/change-device-status.usecase.js';
import { ChangeDeviceTagsCommand } from '../use-cases/change-device-tags/change-device-tags.command.js';
import { ChangeDeviceTags } from '../use-cases/change-device-tags/change-device-tags.usecase.js';
import { CreateDeviceCommand } from '../use-cases/create-device/create-device.command.js';
import { CreateDevice } from '../use-cases/create-device/create-device.usecase.js';
import { GetDeviceCommand } from '../use-cases/get-device/get-device.command.js';
import { GetDevice } from '../use-cases/get-device/get-device.usecase.js';
import { ImportDevices } from '../use-cases/import-devices/import-devices.usecase.js';
import { ListDevicesCommand } from '../use-cases/list-devices/list-devices.command.js';
import { ListDevices } from '../use-cases/list-devices/list-devices.usecase.js';
import { SummarizeFleetCommand } from '../use-cases/summarize-fleet/summarize-fleet.command.js';
import { SummarizeFleet } from '../use-cases/summarize-fleet/summarize-fleet.usecase.js';
import { UpdateDeviceCommand } from '../use-cases/update-device/update-device.command.js';
import { UpdateDevice } from '../use-cases/update-device/update-device.usecase.js';

type Req<K extends keyof typeof DeviceMessages> = MessageRequest<(typeof DeviceMessages)[K]>;

/**
 * The Devices endpoints (libs/contracts registry.endpoints.ts); the tenant always comes from the
 * request context. Handlers are async so that a command refused when built answers a rejected
 * promise, like every other failure.
 */
@Controller()
export class DevicesController {
  constructor(
    @Inject(ListDevices) private readonly listDevices: ListDevices,
    @Inject(GetDevice) private readonly getDevice: GetDevice,
    @Inject(CreateDevice) private readonly createDevice: CreateDevice,
    @Inject(UpdateDevice) private readonly updateDevice: UpdateDevice,
    @Inject(ImportDevices) private readonly importDevices: ImportDevices,
    @Inject(ChangeDeviceStatus) private readonly changeStatus: ChangeDeviceStatus,
    @Inject(ChangeDeviceTags) private readonly changeTags: ChangeDeviceTags,
    @Inject(SummarizeFleet) private readonly summarizeFleet: SummarizeFleet,
  ) {}

  @MessagePattern(DeviceMessages.summary.pattern)
  async summary(@Payload() call: Req<'summary'>): Promise<FleetSummary> {
    return this.summarizeFleet.execute(SummarizeFleetCommand.create({ ctx: call.ctx, query: call.query }));
  }

  @MessagePattern(DeviceMessages.list.pattern)
  async list(@Payload() call: Req<'list'>): Promise<DevicePage> {
    return this.listDevices.execute(ListDevicesCommand.create({ ctx: call.ctx, query: call.query }));
  }

  @MessagePattern(DeviceMessages.get.pattern)
  async get(@Payload() call: Req<'get'>): Promise<Device> {
    return this.getDevice.execute(GetDeviceCommand.create({ ctx: call.ctx, hwid: call.params?.hwid }));
  }

  @MessagePattern(DeviceMessages.create.pattern)
  async create(@Payload() call: Req<'create'>): Promise<Device> {
    return this.createDevice.execute(CreateDeviceCommand.create({ ctx: call.ctx, body: call.body }));
  }

  @MessagePattern(DeviceMessages.update.pattern)
  async update(@Payload() call: Req<'update'>): Promise<Device> {
    return this.updateDevice.execute(UpdateDeviceCommand.create({ ctx: call.ctx, hwid: call.params?.hwid, body: call.body }));
  }

  @MessagePattern(DeviceMessages.import.pattern)
  async import(@Payload() call: Req<'import'>): Promise<DeviceImportResult> {
    return this.importDevices.executeForRequest(call);
  }

  @MessagePattern(DeviceMessages.withdraw.pattern)
  async withdraw(@Payload() call: Req<'withdraw'>): Promise<Device> {
    return this.changeStatus.execute(ChangeDeviceStatusCommand.create({ ctx: call.ctx, hwid: call.params?.hwid, status: 'withdrawn' }));
  }

  @MessagePattern(DeviceMessages.reactivate.pattern)
  async reactivate(@Payload() call: Req<'reactivate'>): Promise<Device> {
    return this.changeStatus.execute(ChangeDeviceStatusCommand.create({ ctx: call.ctx, hwid: call.params?.hwid, status: 'active' }));
  }

  @MessagePattern(DeviceMessages.getTags.pattern)
  async getTags(@Payload() call: Req<'getTags'>): Promise<DeviceTags> {
    return this.getDevice.tags(GetDeviceCommand.create({ ctx: call.ctx, hwid: call.params?.hwid }));
  }

  @MessagePattern(DeviceMessages.replaceTags.pattern)
  async replaceTags(@Payload() call: Req<'replaceTags'>): Promise<DeviceTags> {
    return { tags: await this.changeTags.execute(ChangeDeviceTagsCommand.replace({ ctx: call.ctx, hwid: call.params?.hwid, body: call.body })) };
  }

  @MessagePattern(DeviceMessages.addTag.pattern)
  async addTag(@Payload() call: Req<'addTag'>): Promise<void> {
    await this.changeTags.execute(ChangeDeviceTagsCommand.single({ ctx: call.ctx, hwid: call.params?.hwid, tag: call.params?.tag, kind: 'add' }));
  }

  @MessagePattern(DeviceMessages.removeTag.pattern)
  async removeTag(@Payload() call: Req<'removeTag'>): Promise<void> {
    await this.changeTags.execute(ChangeDeviceTagsCommand.single({ ctx: call.ctx, hwid: call.params?.hwid, tag: call.params?.tag, kind: 'remove' }));
  }
}
