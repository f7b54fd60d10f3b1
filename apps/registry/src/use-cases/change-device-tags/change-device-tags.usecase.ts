import { Inject, Injectable } from '@nestjs/common';
import { DEVICE_LIMITS, RegistryErrors } from '@app/contracts';
import { byteOrder, sameList } from '../../domain/device-values.js';
import { RegistryStore } from '../../repositories/registry.store.js';
import { DeviceChanges } from '../../services/device-changes.js';
import type { ChangeDeviceTagsCommand, TagChange } from './change-device-tags.command.js';

const ACTIONS = { replace: 'device.tags.replace', add: 'device.tags.add', remove: 'device.tags.remove' } as const;

/** Changes the tag set of one device. Idempotent: a change that leaves the set as it is writes nothing. */
@Injectable()
export class ChangeDeviceTags {
  constructor(
    @Inject(RegistryStore) private readonly store: RegistryStore,
    @Inject(DeviceChanges) private readonly changes: DeviceChanges,
  ) {}

  /** The device's tags afterwards, sorted. */
  async execute(command: ChangeDeviceTagsCommand): Promise<string[]> {
    const { customerId, hwid } = command;
    const outcome = await this.store.transaction(async ({ devices, outbox }) => {
      const current = await devices.find({ customerId, hwid }, { lock: true });
      if (!current) throw RegistryErrors.device_not_found();
      const after = applyChange(current.tags, command.change);
      if (sameList(after, current.tags)) return { after: current.tags, changed: false };
      if (after.length > DEVICE_LIMITS.maxTags) throw RegistryErrors.device_tags_too_many();
      const stored = await devices.setTags({ customerId, hwid, before: current.tags, after });
      await this.changes.audit(outbox, command.ctx, {
        action: ACTIONS[command.change.kind],
        targetType: 'device',
        targetId: hwid,
        before: { tags: current.tags },
        after: { tags: stored.tags },
      });
      return { after: stored.tags, changed: true };
    });
    if (outcome.changed) this.changes.deviceChanged(customerId, hwid);
    return [...outcome.after];
  }
}

function applyChange(current: readonly string[], change: TagChange): string[] {
  switch (change.kind) {
    case 'replace':
      return [...change.tags];
    case 'add':
      return current.includes(change.tag) ? [...current] : [...current, change.tag].sort(byteOrder);
    case 'remove':
      return current.filter((tag) => tag !== change.tag);
  }
}
