import { type CustomerId, type RequestContext, requireTenant, type TenantRequestContext } from '@app/contracts';
import { normalizeHwid, normalizeTag, normalizeTags } from '../../domain/device-values.js';

export type TagChange = { readonly kind: 'replace'; readonly tags: readonly string[] } | { readonly kind: 'add' | 'remove'; readonly tag: string };

/** PUT /devices/{hwid}/tags (replace the set), PUT and DELETE /devices/{hwid}/tags/{tag}. */
export class ChangeDeviceTagsCommand {
  private constructor(
    readonly ctx: TenantRequestContext,
    readonly customerId: CustomerId,
    readonly hwid: string,
    readonly change: TagChange,
  ) {}

  static replace(input: { ctx: RequestContext; hwid: unknown; body: unknown }): ChangeDeviceTagsCommand {
    const ctx = requireTenant(input.ctx);
    const hwid = normalizeHwid(input.hwid);
    const tags = normalizeTags((input.body as { tags?: unknown } | undefined)?.tags);
    return new ChangeDeviceTagsCommand(ctx, ctx.customer.id, hwid, { kind: 'replace', tags });
  }

  static single(input: { ctx: RequestContext; hwid: unknown; tag: unknown; kind: 'add' | 'remove' }): ChangeDeviceTagsCommand {
    const ctx = requireTenant(input.ctx);
    const hwid = normalizeHwid(input.hwid);
    return new ChangeDeviceTagsCommand(ctx, ctx.customer.id, hwid, { kind: input.kind, tag: normalizeTag(input.tag) });
  }
}
