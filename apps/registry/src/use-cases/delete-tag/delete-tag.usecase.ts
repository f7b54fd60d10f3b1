import { Inject, Injectable } from '@nestjs/common';
import { RegistryStore } from '../../repositories/registry.store.js';
import { DeviceChanges } from '../../services/device-changes.js';
import type { DeleteTagCommand } from './delete-tag.command.js';

/**
 * Removes a tag from all devices of a customer: one transaction driven by device_tag's index.
 * Idempotent: deleting a tag no device carries changes nothing. The caller (the firmware app's
 * Tags use cases) writes the audit entry; this broadcasts deviceChanged for the customer when
 * devices changed.
 */
@Injectable()
export class DeleteTag {
  constructor(
    @Inject(RegistryStore) private readonly store: RegistryStore,
    @Inject(DeviceChanges) private readonly changes: DeviceChanges,
  ) {}

  /** `devices`: devices that carried the tag. */
  async execute(command: DeleteTagCommand): Promise<{ devices: number }> {
    const { customerId, tag } = command;
    const devices = await this.store.transaction(({ tags }) => tags.deleteTag({ customerId, tag }));
    if (devices > 0) this.changes.deviceChanged(customerId, null);
    return { devices };
  }
}
