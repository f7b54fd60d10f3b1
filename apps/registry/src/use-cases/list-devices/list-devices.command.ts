import { Type } from '@sinclair/typebox';
import { CommonErrors, DEVICE_LIMITS, DeviceListQuery, type RequestContext, requireTenant } from '@app/contracts';
import type { Tenant } from '@app/infra';
import { contractCheck } from '@app/platform';
import type { DeviceFilter } from '../../repositories/device-list.repository.js';

/** The contract's query minus `customer` (the gateway resolved it into the context). */
const checkQuery = contractCheck(Type.Omit(DeviceListQuery, ['customer']));
/** The contract's Offset has no maximum; past 2^53 an offset is no longer exact, so it is refused with the same rule. */
const OFFSET_RULE = DeviceListQuery.properties.offset['x-error'] as string;

/**
 * GET /devices, validated when built with the contract's DeviceListQuery (the gateway validated
 * the query already; this keeps the app honest when called otherwise, where query values may
 * still be the texts of the URL). Repeated `tag` values are distinct; `limit` is asked for one
 * more row to know whether a next page exists.
 */
export class ListDevicesCommand {
  private constructor(readonly filter: Tenant<DeviceFilter>) {}

  get limit(): number {
    return this.filter.limit - 1;
  }

  static create(input: { ctx: RequestContext; query: Record<string, unknown> | undefined }): ListDevicesCommand {
    const customerId = requireTenant(input.ctx).customer.id;
    const raw = input.query ?? {};
    const query = checkQuery({
      tag: raw.tag === undefined ? undefined : Array.isArray(raw.tag) ? raw.tag : [raw.tag],
      tag_mode: raw.tag_mode ?? undefined,
      q: raw.q,
      status: raw.status,
      has_keys: booleanFromText(raw.has_keys),
      fw_version: raw.fw_version,
      hw_name: raw.hw_name,
      hw_version: raw.hw_version,
      fw_name: raw.fw_name,
      last_seen: raw.last_seen,
      limit: integerFromText(raw.limit),
      offset: integerFromText(raw.offset),
    });
    const offset = query.offset ?? 0;
    if (!Number.isSafeInteger(offset)) throw CommonErrors.invalid_request({ detail: OFFSET_RULE });
    return new ListDevicesCommand({
      customerId,
      tags: [...new Set(query.tag ?? [])],
      tagMode: query.tag_mode ?? 'any',
      prefix: query.q || undefined,
      status: query.status,
      hasKeys: query.has_keys,
      reported: { fwVersion: query.fw_version, hwName: query.hw_name, hwVersion: query.hw_version, fwName: query.fw_name },
      lastSeen: query.last_seen,
      limit: (query.limit ?? DEVICE_LIMITS.listDefaultLimit) + 1,
      offset,
    });
  }
}

/** A query text as the boolean it names; anything else is left for the schema to refuse. */
function booleanFromText(value: unknown): unknown {
  return value === 'true' ? true : value === 'false' ? false : value;
}

/** A query text as the number it names; null is absent. Anything else is left for the schema to refuse. */
function integerFromText(value: unknown): unknown {
  if (value === null) return undefined;
  return typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
}
