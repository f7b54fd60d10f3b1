import { CommonErrors, type CustomerId, type RequestContext, requireTenant, type TenantRequestContext } from '@app/contracts';
import { normalizeAttributes, normalizeHwid, normalizeKeys } from '../../domain/device-values.js';

/** PATCH /devices/{hwid}: each given property replaces the stored one. */
export class UpdateDeviceCommand {
  private constructor(
    readonly ctx: TenantRequestContext,
    readonly customerId: CustomerId,
    readonly hwid: string,
    readonly attributes: Record<string, unknown> | undefined,
    readonly keys: readonly string[] | undefined,
  ) {}

  static create(input: { ctx: RequestContext; hwid: unknown; body: unknown }): UpdateDeviceCommand {
    const ctx = requireTenant(input.ctx);
    const hwid = normalizeHwid(input.hwid);
    const body = (input.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw CommonErrors.invalid_request({ detail: 'body must be a JSON object' });
    const unknown = Object.keys(body).find((key) => key !== 'attributes' && key !== 'keys');
    if (unknown !== undefined) throw CommonErrors.invalid_request({ detail: `unknown body property ${unknown}` });
    const attributes = body.attributes === undefined ? undefined : normalizeAttributes(body.attributes);
    const keys = body.keys === undefined ? undefined : normalizeKeys(body.keys);
    return new UpdateDeviceCommand(ctx, ctx.customer.id, hwid, attributes, keys);
  }
}
