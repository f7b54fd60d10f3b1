import { Inject, Injectable } from '@nestjs/common';
import {
  type Device,
  type DeviceImportResult,
  type DeviceLookup,
  type DeviceLookupBatchRequest,
  type DeviceLookupRequest,
  type DeviceMessages,
  type DevicePage,
  type DevicesSeen,
  type DeviceTags,
  type MessageRequest,
  isHwid,
  MAX_DEVICE_LOOKUP_BATCH,
  requireTenant,
  ServiceError,
  type TagCounts,
} from '@app/contracts';
import { ObjectStore } from '@app/infra';
import { normalizeHwid } from '../domain/device-rules.js';
import { toDeviceDto } from '../domain/device.dto.js';
import { DeviceRepository } from '../repositories/device.repository.js';
import { ChangeDeviceStatusCommand } from '../use-cases/change-device-status/change-device-status.command.js';
import { ChangeDeviceStatus } from '../use-cases/change-device-status/change-device-status.usecase.js';
import { ChangeDeviceTagsCommand } from '../use-cases/change-device-tags/change-device-tags.command.js';
import { ChangeDeviceTags } from '../use-cases/change-device-tags/change-device-tags.usecase.js';
import { CreateDeviceCommand } from '../use-cases/create-device/create-device.command.js';
import { CreateDevice } from '../use-cases/create-device/create-device.usecase.js';
import { CustomerTagCommand, customerIdOf } from '../use-cases/customer-tags/customer-tags.command.js';
import { CustomerTags } from '../use-cases/customer-tags/customer-tags.usecase.js';
import { ImportDevicesCommand } from '../use-cases/import-devices/import-devices.command.js';
import { ImportDevices } from '../use-cases/import-devices/import-devices.usecase.js';
import { ListDevicesQuery } from '../use-cases/list-devices/list-devices.query.js';
import { RecordSightings } from '../use-cases/record-sightings/record-sightings.usecase.js';
import { UpdateDeviceCommand } from '../use-cases/update-device/update-device.command.js';
import { UpdateDevice } from '../use-cases/update-device/update-device.usecase.js';

type Call<K extends keyof typeof DeviceMessages> = MessageRequest<(typeof DeviceMessages)[K]>;

/** The registry app's operations; the tenant of endpoint calls always comes from the request context. */
@Injectable()
export class DevicesService {
  constructor(
    @Inject(DeviceRepository) private readonly repository: DeviceRepository,
    @Inject(CreateDevice) private readonly createDevice: CreateDevice,
    @Inject(UpdateDevice) private readonly updateDevice: UpdateDevice,
    @Inject(ChangeDeviceStatus) private readonly changeStatus: ChangeDeviceStatus,
    @Inject(ChangeDeviceTags) private readonly changeTags: ChangeDeviceTags,
    @Inject(ImportDevices) private readonly importDevices: ImportDevices,
    @Inject(CustomerTags) private readonly customerTags: CustomerTags,
    @Inject(RecordSightings) private readonly recordSightings: RecordSightings,
    @Inject(ObjectStore) private readonly store: ObjectStore,
  ) {}

  async get(call: Call<'get'>): Promise<Device> {
    return toDeviceDto(await this.find(call));
  }

  async list(call: Call<'list'>): Promise<DevicePage> {
    const query = ListDevicesQuery.create({ ctx: call.ctx, query: call.query as Record<string, unknown> | undefined });
    const rows = await this.repository.list(query.filter);
    const items = rows.slice(0, query.limit).map(toDeviceDto);
    return { items, next_offset: rows.length > query.limit ? query.filter.offset + items.length : null };
  }

  async create(call: Call<'create'>): Promise<Device> {
    return this.createDevice.execute(CreateDeviceCommand.create({ ctx: call.ctx, body: call.body }));
  }

  async update(call: Call<'update'>): Promise<Device> {
    return this.updateDevice.execute(UpdateDeviceCommand.create({ ctx: call.ctx, hwid: call.params?.hwid, body: call.body }));
  }

  async import(call: Call<'import'>): Promise<DeviceImportResult> {
    let command: ImportDevicesCommand;
    try {
      command = ImportDevicesCommand.create({ ctx: call.ctx, file: call.file, contentType: call.contentType });
    } catch (err) {
      // The app owns the staged body from the moment it is called: a refused import deletes it.
      if (call.file?.key) await this.store.delete(call.file.key).catch(() => undefined);
      throw err;
    }
    return this.importDevices.execute(command);
  }

  async withdraw(call: Call<'withdraw'>): Promise<Device> {
    return this.changeStatus.execute(ChangeDeviceStatusCommand.create({ ctx: call.ctx, hwid: call.params?.hwid, status: 'withdrawn' }));
  }

  async reactivate(call: Call<'reactivate'>): Promise<Device> {
    return this.changeStatus.execute(ChangeDeviceStatusCommand.create({ ctx: call.ctx, hwid: call.params?.hwid, status: 'active' }));
  }

  async getTags(call: Call<'getTags'>): Promise<DeviceTags> {
    return { tags: [...(await this.find(call)).tags] };
  }

  async replaceTags(call: Call<'replaceTags'>): Promise<DeviceTags> {
    return { tags: await this.changeTags.execute(ChangeDeviceTagsCommand.replace({ ctx: call.ctx, hwid: call.params?.hwid, body: call.body })) };
  }

  async addTag(call: Call<'addTag'>): Promise<void> {
    await this.changeTags.execute(ChangeDeviceTagsCommand.single({ ctx: call.ctx, hwid: call.params?.hwid, tag: call.params?.tag, kind: 'add' }));
  }

  async removeTag(call: Call<'removeTag'>): Promise<void> {
    await this.changeTags.execute(ChangeDeviceTagsCommand.single({ ctx: call.ctx, hwid: call.params?.hwid, tag: call.params?.tag, kind: 'remove' }));
  }

  /** RegistryMessages.lookupDevice: a primary-key point lookup; null for an unknown device (or a HW id no device can have). */
  async lookup(request: DeviceLookupRequest): Promise<DeviceLookup | null> {
    const customerId = customerIdOf(request?.customerId);
    if (!isHwid(request?.hwid)) return null;
    return this.repository.lookup({ customerId, hwid: request.hwid });
  }

  /** RegistryMessages.lookupDevices: one query for the batch; answers in the order asked, null where there is no device. */
  async lookupMany(request: DeviceLookupBatchRequest): Promise<(DeviceLookup | null)[]> {
    const customerId = customerIdOf(request?.customerId);
    const hwids: unknown = request?.hwids;
    if (!Array.isArray(hwids) || hwids.length > MAX_DEVICE_LOOKUP_BATCH) {
      throw ServiceError.badRequest(`hwids must be an array of at most ${MAX_DEVICE_LOOKUP_BATCH} HW ids`);
    }
    const valid = hwids.filter(isHwid);
    const found = valid.length ? await this.repository.lookupMany({ customerId, hwids: valid }) : new Map<string, DeviceLookup>();
    return hwids.map((hwid) => (isHwid(hwid) ? (found.get(hwid) ?? null) : null));
  }

  async tagCounts(request: { customerId: string }): Promise<TagCounts> {
    return this.customerTags.counts(customerIdOf(request?.customerId));
  }

  async renameTag(request: { customerId: string; from: string; to: string }): Promise<{ devices: number }> {
    return this.customerTags.rename(CustomerTagCommand.rename(request ?? {}));
  }

  async deleteTag(request: { customerId: string; tag: string }): Promise<{ devices: number }> {
    return this.customerTags.delete(CustomerTagCommand.delete(request ?? {}));
  }

  /** RegistryMessages.counts: every requested customer gets an entry (zeros when it has no devices). */
  async counts(request: { customerIds: readonly string[] }): Promise<Record<string, { devices: number; tags: string[] }>> {
    const ids = Array.isArray(request?.customerIds) ? request.customerIds : [];
    const customerIds = ids.map(customerIdOf);
    const found = await this.repository.countsByCustomer(customerIds);
    const result: Record<string, { devices: number; tags: string[] }> = {};
    ids.forEach((id, i) => {
      result[id] = found.get(customerIds[i]!) ?? { devices: 0, tags: [] };
    });
    return result;
  }

  async devicesSeen(event: DevicesSeen): Promise<void> {
    await this.recordSightings.execute(event);
  }

  private async find(call: Call<'get'>) {
    const customerId = requireTenant(call.ctx).customer.id;
    const device = await this.repository.find({ customerId, hwid: normalizeHwid(call.params?.hwid) });
    if (!device) throw ServiceError.notFound('device not found');
    return device;
  }
}
