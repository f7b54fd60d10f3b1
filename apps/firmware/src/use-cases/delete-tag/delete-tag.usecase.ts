import { Inject, Injectable } from '@nestjs/common';
import { type EndpointCall, requireTenant, type TagChangeResult, type TagParams, type TagsCustomerQuery, type TenantRequestContext } from '@app/contracts';
import type { TagChangeOutcome } from '../../domain/build-changes.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { FirmwareChanges } from '../../services/firmware-changes.js';
import { TagSync } from '../../tags/tag-sync.js';
import { DeleteTagCommand } from './delete-tag.command.js';

/**
 * Deletes a tag: from the builds and into the outbox for the registry in one transaction, then
 * from the devices through TagSync (at once, or retried until applied: the answer says which).
 */
@Injectable()
export class DeleteTagUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(TagSync) private readonly sync: TagSync,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
  ) {}

  async executeForRequest(call: EndpointCall<TagParams, TagsCustomerQuery, undefined>): Promise<TagChangeResult> {
    const ctx = requireTenant(call.ctx);
    return this.execute(DeleteTagCommand.create({ customer: ctx.customer, tag: call.params?.tag }), ctx);
  }

  async execute(command: DeleteTagCommand, ctx: TenantRequestContext): Promise<TagChangeResult> {
    const { customerId, tag } = command;
    const outcome = await this.applyToBuilds(command);
    if (outcome.changedBuilds > 0) this.changes.changed(customerId);
    await this.changes.audit(ctx, 'tag.delete', { type: 'tag', id: tag }, { tag }, null);
    const { applied } = await this.sync.apply(customerId, outcome.opId);
    return { tag, firmware: 0, devices: applied ? 0 : null, pending: !applied };
  }

  /** The builds' part, in one transaction: the tag removed from every build and the operation recorded for the registry. */
  applyToBuilds(command: DeleteTagCommand): Promise<TagChangeOutcome> {
    const { customerId, tag } = command;
    return this.store.transaction(async ({ builds, tagSync }) => {
      const changedBuilds = await builds.deleteTag({ customerId, tag });
      const opId = await tagSync.record({ customerId, kind: 'delete', tag });
      return { opId, changedBuilds };
    });
  }
}
