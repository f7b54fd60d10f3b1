import { Inject, Injectable } from '@nestjs/common';
import { RegistryStore } from '../../repositories/registry.store.js';
import { DeviceChanges } from '../../services/device-changes.js';
import type { RenameTagCommand } from './rename-tag.command.js';

/**
 * Renames a tag on all devices of a customer, merging onto the new name where a device carries
 * both: one transaction driven by device_tag's index. Idempotent: renaming a tag no device
 * carries changes nothing. The caller (the firmware app's Tags use cases) writes the audit
 * entry; this broadcasts deviceChanged for the customer when devices changed.
 */
@Injectable()
export class RenameTag {
  constructor(
    @Inject(RegistryStore) private readonly store: RegistryStore,
    @Inject(DeviceChanges) private readonly changes: DeviceChanges,
  ) {}

  /** `devices`: devices carrying the new name afterwards. */
  async execute(command: RenameTagCommand): Promise<{ devices: number }> {
    const { customerId, from, to } = command;
    const { changed, devices } = await this.store.transaction(({ tags }) => tags.renameTag({ customerId, from, to }));
    if (changed > 0) this.changes.deviceChanged(customerId, null);
    return { devices };
  }
}
