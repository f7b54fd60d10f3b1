import { Inject, Injectable } from '@nestjs/common';
import type { CustomerId, TagCounts } from '@app/contracts';
import { DeviceRepository } from '../../repositories/device.repository.js';
import { DeviceNotifier } from '../../services/device-notifier.js';
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
    @Inject(DeviceRepository) private readonly repository: DeviceRepository,
    @Inject(DeviceNotifier) private readonly notifier: DeviceNotifier,
  ) {}

  async counts(customerId: CustomerId): Promise<TagCounts> {
    return Object.fromEntries(await this.repository.tagCounts(customerId));
  }

  /** `devices`: devices carrying the new name afterwards. */
  async rename(command: CustomerTagCommand): Promise<{ devices: number }> {
    const { changed, devices } = await this.repository.renameTag({ customerId: command.customerId, from: command.tag, to: command.to! });
    if (changed > 0) this.notifier.deviceChanged(command.customerId, null);
    return { devices };
  }

  /** `devices`: devices that carried the tag. */
  async delete(command: CustomerTagCommand): Promise<{ devices: number }> {
    const devices = await this.repository.deleteTag({ customerId: command.customerId, tag: command.tag });
    if (devices > 0) this.notifier.deviceChanged(command.customerId, null);
    return { devices };
  }
}
