import { Inject, Injectable } from '@nestjs/common';
import {
  type EndpointCall,
  requireTenant,
  type TagChangeResult,
  type TagParams,
  type TagRenameRequest,
  type TagsCustomerQuery,
  type TenantRequestContext,
} from '@app/contracts';
import type { TagChangeOutcome } from '../../domain/build-changes.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { FirmwareChanges } from '../../services/firmware-changes.js';
import { DeviceTagCounts } from '../../tags/device-tag-counts.js';
import { TagSync } from '../../tags/tag-sync.js';
import { RenameTagCommand } from './rename-tag.command.js';

/**
 * Renames a tag, merging into `to` where a build already has it: on the builds and in the
 * outbox for the registry in one transaction, then on the devices through TagSync (at once, or
 * retried until applied: the answer says which).
 */
@Injectable()
export class RenameTagUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(TagSync) private readonly sync: TagSync,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
    @Inject(DeviceTagCounts) private readonly deviceCounts: DeviceTagCounts,
  ) {}

  async executeForRequest(call: EndpointCall<TagParams, TagsCustomerQuery, TagRenameRequest>): Promise<TagChangeResult> {
    const ctx = requireTenant(call.ctx);
    return this.execute(RenameTagCommand.create({ customer: ctx.customer, from: call.params?.tag, to: call.body?.to }), ctx);
  }

  async execute(command: RenameTagCommand, ctx: TenantRequestContext): Promise<TagChangeResult> {
    const { customerId, from, to } = command;
    const builds = this.store.repos.builds;
    if (from === to) {
      // Nothing to change; the counts as they are.
      const [firmware, devices] = await Promise.all([builds.countWithTag({ customerId, tag: to }), this.deviceCounts.of(customerId)]);
      return { tag: to, firmware, devices: Number(devices[to] ?? 0), pending: false };
    }
    const outcome = await this.applyToBuilds(command);
    if (outcome.changedBuilds > 0) this.changes.changed(customerId);
    await this.changes.audit(ctx, 'tag.rename', { type: 'tag', id: from }, { tag: from }, { tag: to });
    const { applied, devices } = await this.sync.apply(customerId, outcome.opId);
    const firmware = await builds.countWithTag({ customerId, tag: to });
    if (!applied) return { tag: to, firmware, devices: null, pending: true };
    // Applied by another request's replay: ask for the count.
    const count =
      devices ??
      (await this.deviceCounts.of(customerId).then(
        (counts) => Number(counts[to] ?? 0),
        () => null,
      ));
    return { tag: to, firmware, devices: count, pending: false };
  }

  /** The builds' part, in one transaction: the tag renamed on every build and the operation recorded for the registry. */
  applyToBuilds(command: RenameTagCommand): Promise<TagChangeOutcome> {
    const { customerId, from, to } = command;
    return this.store.transaction(async ({ builds, tagSync }) => {
      const changedBuilds = await builds.renameTag({ customerId, from, to });
      const opId = await tagSync.record({ customerId, kind: 'rename', tag: from, toTag: to });
      return { opId, changedBuilds };
    });
  }
}
