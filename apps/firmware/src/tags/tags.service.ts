import { Inject, Injectable } from '@nestjs/common';
import {
  type EndpointCall,
  isTagName,
  RegistryMessages,
  requireTenant,
  ServiceError,
  type TagChangeResult,
  type TagCountList,
  type TagParams,
  type TagRenameRequest,
  type TagsCustomerQuery,
} from '@app/contracts';
import { MessageBus } from '@app/infra';
import { byCodeUnit, BuildRepository } from '../repositories/build.repository.js';
import { FirmwareChanges } from '../services/firmware-changes.js';
import { TagSync } from './tag-sync.js';

type NoParams = Record<string, never>;

const COUNTS_TIMEOUT_MS = 5_000;

/**
 * The Tags API (DECISIONS "Tags"): counts over builds (here) and devices (the registry);
 * rename with merge and delete applied to the builds in one transaction, then to the devices
 * through TagSync (at once, or retried until applied: the answer says which).
 */
@Injectable()
export class TagsService {
  constructor(
    @Inject(BuildRepository) private readonly builds: BuildRepository,
    @Inject(TagSync) private readonly sync: TagSync,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async list(call: EndpointCall<NoParams, TagsCustomerQuery, undefined>): Promise<TagCountList> {
    const customerId = requireTenant(call.ctx).customer.id;
    const [firmware, devices] = await Promise.all([this.builds.tagCounts({ customerId }), this.deviceCounts(customerId)]);
    const tags = [...new Set([...firmware.keys(), ...Object.keys(devices)])].sort(byCodeUnit);
    return { items: tags.map((tag) => ({ tag, firmware: firmware.get(tag) ?? 0, devices: Number(devices[tag] ?? 0) })) };
  }

  async rename(call: EndpointCall<TagParams, TagsCustomerQuery, TagRenameRequest>): Promise<TagChangeResult> {
    const ctx = requireTenant(call.ctx);
    const customerId = ctx.customer.id;
    const from = call.params?.tag;
    const to = call.body?.to;
    if (!isTagName(from)) throw ServiceError.badRequest('tag does not match the tag pattern');
    if (!isTagName(to)) throw ServiceError.badRequest('to must be a tag name matching the tag pattern');
    if (from === to) {
      // Nothing to change; the counts as they are.
      const [firmware, devices] = await Promise.all([this.builds.countWithTag({ customerId, tag: to }), this.deviceCounts(customerId)]);
      return { tag: to, firmware, devices: Number(devices[to] ?? 0), pending: false };
    }
    const outcome = await this.builds.renameTag({ customerId, from, to });
    if (outcome.changedBuilds > 0) this.changes.changed(customerId);
    this.changes.audit(ctx, 'tag.rename', { type: 'tag', id: from }, { tag: from }, { tag: to });
    const { applied, devices } = await this.sync.apply(customerId, outcome.opId);
    const firmware = await this.builds.countWithTag({ customerId, tag: to });
    if (!applied) return { tag: to, firmware, devices: null, pending: true };
    // Applied by another request's replay: ask for the count.
    const count = devices ?? (await this.deviceCounts(customerId).then((counts) => Number(counts[to] ?? 0), () => null));
    return { tag: to, firmware, devices: count, pending: false };
  }

  async delete(call: EndpointCall<TagParams, TagsCustomerQuery, undefined>): Promise<TagChangeResult> {
    const ctx = requireTenant(call.ctx);
    const customerId = ctx.customer.id;
    const tag = call.params?.tag;
    if (!isTagName(tag)) throw ServiceError.badRequest('tag does not match the tag pattern');
    const outcome = await this.builds.deleteTag({ customerId, tag });
    if (outcome.changedBuilds > 0) this.changes.changed(customerId);
    this.changes.audit(ctx, 'tag.delete', { type: 'tag', id: tag }, { tag }, null);
    const { applied } = await this.sync.apply(customerId, outcome.opId);
    return { tag, firmware: 0, devices: applied ? 0 : null, pending: !applied };
  }

  private async deviceCounts(customerId: string): Promise<Record<string, number>> {
    try {
      return (await this.bus.send(RegistryMessages.tagCounts, { customerId }, { timeoutMs: COUNTS_TIMEOUT_MS })) ?? {};
    } catch (err) {
      if (ServiceError.is(err)) throw ServiceError.unavailable(`device tag counts unavailable: ${err.message}`);
      throw err;
    }
  }
}
