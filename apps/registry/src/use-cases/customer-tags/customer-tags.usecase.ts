import { Inject, Injectable } from '@nestjs/common';
import type { CustomerId, TagCounts } from '@app/contracts';
import { RegistryStore } from '../../repositories/registry.store.js';
import { DeviceChanges } from '../../services/device-changes.js';
import type { CustomerTagCommand } from './customer-tags.command.js';

/**
 * The device side of the Tags API: counts, rename (merging onto an existing tag) and delete
 * across all devices of a customer, each one transaction driven by device_tag's index.
 * Idempotent: renaming or deleting a tag no device carries changes nothing. The caller (the
 * firmware app's Tags use cases) writes the audit entry; this broadcasts deviceChanged for the
 * customer when devices changed.
 */
@Injectable()
export class CustomerTags {
  constructor(
    @Inject(RegistryStore) private readonly store: RegistryStore,
    @Inject(DeviceChanges) private readonly changes: DeviceChanges,
  ) {}

  async counts(customerId: CustomerId): Promise<TagCounts> {
    return Object.fromEntries(await this.store.repos.tags.tagCounts(customerId));
  }

  /** `devices`: devices carrying the new name afterwards. */
  async rename(command: CustomerTagCommand): Promise<{ devices: number }> {
    const { changed, devices } = await this.store.transaction(({ tags }) => tags.renameTag({ customerId: command.customerId, from: command.tag, to: command.to! }));
    if (changed > 0) this.changes.deviceChanged(command.customerId, null);
    return { devices };
  }

  /** `devices`: devices that carried the tag. */
  async delete(command: CustomerTagCommand): Promise<{ devices: number }> {
    const devices = await this.store.transaction(({ tags }) => tags.deleteTag({ customerId: command.customerId, tag: command.tag }));
    if (devices > 0) this.changes.deviceChanged(command.customerId, null);
    return { devices };
  }
}
