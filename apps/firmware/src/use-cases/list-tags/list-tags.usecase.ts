import { Inject, Injectable } from '@nestjs/common';
import { type EndpointCall, requireTenant, type TagCountList, type TagsCustomerQuery } from '@app/contracts';
import { byCodeUnit } from '../../repositories/build.repository.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { DeviceTagCounts } from '../../tags/device-tag-counts.js';

/** GET /tags: every tag of the customer with how many builds (here) and devices (the registry) carry it, sorted. */
@Injectable()
export class ListTagsUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(DeviceTagCounts) private readonly deviceCounts: DeviceTagCounts,
  ) {}

  async execute(call: EndpointCall<Record<string, never>, TagsCustomerQuery, undefined>): Promise<TagCountList> {
    const customerId = requireTenant(call.ctx).customer.id;
    const [firmware, devices] = await Promise.all([this.store.repos.builds.tagCounts({ customerId }), this.deviceCounts.of(customerId)]);
    const tags = [...new Set([...firmware.keys(), ...Object.keys(devices)])].sort(byCodeUnit);
    return { items: tags.map((tag) => ({ tag, firmware: firmware.get(tag) ?? 0, devices: Number(devices[tag] ?? 0) })) };
  }
}
