import { CommonErrors, type CustomerId, type RequestContext, requireTenant, type TenantRequestContext } from '@app/contracts';
import { normalizeAttributes, normalizeHwid, normalizeKeys, normalizeTags } from '../../domain/device-values.js';
import { canWriteTags } from '../../domain/access.js';

/** POST /devices, validated when built: an instance is always a device that may be stored. */
export class CreateDeviceCommand {
  private constructor(
    readonly ctx: TenantRequestContext,
    readonly customerId: CustomerId,
    readonly hwid: string,
    /** Sorted, distinct. */
    readonly tags: readonly string[],
    readonly attributes: Record<string, unknown>,
    readonly keys: readonly string[],
  ) {}

  /** Throws 400 (a rule), 403 (tags without tags:write). */
  static create(input: { ctx: RequestContext; body: unknown }): CreateDeviceCommand {
    const ctx = requireTenant(input.ctx);
    const body = (input.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw CommonErrors.invalid_request({ detail: 'body must be a JSON object' });
    const hwid = normalizeHwid(body.hwid);
    const tags = body.tags === undefined ? [] : normalizeTags(body.tags);
    if (tags.length > 0 && !canWriteTags(ctx)) throw CommonErrors.missing_scope({ scope: 'tags:write' });
    const attributes = body.attributes === undefined ? {} : normalizeAttributes(body.attributes);
    const keys = body.keys === undefined ? [] : normalizeKeys(body.keys);
    return new CreateDeviceCommand(ctx, ctx.customer.id, hwid, tags, attributes, keys);
  }
}
