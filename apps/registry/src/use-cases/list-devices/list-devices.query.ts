import { DEVICE_LIMITS, type DeviceStatus, isTagName, type RequestContext, requireTenant, ServiceError, TAG_RULE } from '@app/contracts';
import type { Tenant } from '@app/infra';
import type { DeviceFilter } from '../../repositories/device.repository.js';

const PREFIX = /^[!-~]{0,64}$/;

/**
 * GET /devices, validated when built (the gateway validated the query already; this keeps the
 * app honest when called otherwise). Repeated `tag` values are distinct; `limit` is asked for
 * one more row to know whether a next page exists.
 */
export class ListDevicesQuery {
  private constructor(readonly filter: Tenant<DeviceFilter>) {}

  get limit(): number {
    return this.filter.limit - 1;
  }

  static create(input: { ctx: RequestContext; query: Record<string, unknown> | undefined }): ListDevicesQuery {
    const customerId = requireTenant(input.ctx).customer.id;
    const query = input.query ?? {};
    const rawTags = query.tag === undefined ? [] : Array.isArray(query.tag) ? query.tag : [query.tag];
    if (rawTags.length > DEVICE_LIMITS.maxQueryTags) throw ServiceError.badRequest(`at most ${DEVICE_LIMITS.maxQueryTags} tag parameters`);
    for (const tag of rawTags) if (!isTagName(tag)) throw ServiceError.badRequest(TAG_RULE);
    const tags = [...new Set(rawTags as string[])];
    const tagMode = query.tag_mode ?? 'any';
    if (tagMode !== 'any' && tagMode !== 'all') throw ServiceError.badRequest('tag_mode must be any or all');
    const q = query.q;
    if (q !== undefined && (typeof q !== 'string' || !PREFIX.test(q))) throw ServiceError.badRequest('q must be at most 64 printable ASCII characters (0x21-0x7E)');
    const status = query.status;
    if (status !== undefined && status !== 'active' && status !== 'withdrawn') throw ServiceError.badRequest('status must be active or withdrawn');
    const hasKeys = booleanOf(query.has_keys);
    const limit = integerIn(query.limit, DEVICE_LIMITS.listDefaultLimit, 1, DEVICE_LIMITS.listMaxLimit, `limit must be an integer from 1 to ${DEVICE_LIMITS.listMaxLimit}`);
    const offset = integerIn(query.offset, 0, 0, Number.MAX_SAFE_INTEGER, 'offset must be a non-negative integer');
    return new ListDevicesQuery({
      customerId,
      tags,
      tagMode,
      prefix: q || undefined,
      status: status as DeviceStatus | undefined,
      hasKeys,
      limit: limit + 1,
      offset,
    });
  }
}

function booleanOf(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw ServiceError.badRequest('has_keys must be true or false');
}

function integerIn(value: unknown, fallback: number, min: number, max: number, message: string): number {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw ServiceError.badRequest(message);
  return n;
}
