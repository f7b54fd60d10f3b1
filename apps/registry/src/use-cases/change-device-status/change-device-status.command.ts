import { type CustomerId, type DeviceStatus, type RequestContext, requireTenant, type TenantRequestContext } from '@app/contracts';
import { normalizeHwid } from '../../domain/device-values.js';

/** POST /devices/{hwid}/withdraw and /reactivate. */
export class ChangeDeviceStatusCommand {
  private constructor(
    readonly ctx: TenantRequestContext,
    readonly customerId: CustomerId,
    readonly hwid: string,
    readonly status: DeviceStatus,
  ) {}

  static create(input: { ctx: RequestContext; hwid: unknown; status: DeviceStatus }): ChangeDeviceStatusCommand {
    const ctx = requireTenant(input.ctx);
    return new ChangeDeviceStatusCommand(ctx, ctx.customer.id, normalizeHwid(input.hwid), input.status);
  }
}
