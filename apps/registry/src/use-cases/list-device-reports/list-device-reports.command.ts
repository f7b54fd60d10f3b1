import { type CustomerId, DEVICE_REPORT_LIMITS, type RequestContext, requireTenant } from '@app/contracts';
import { normalizeHwid } from '../../domain/device-values.js';

/** GET /devices/{hwid}/reports. */
export class ListDeviceReportsCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly hwid: string,
    readonly limit: number,
    readonly offset: number,
  ) {}

  static create(input: { ctx: RequestContext; hwid: unknown; query: { limit?: number; offset?: number } | undefined }): ListDeviceReportsCommand {
    const ctx = requireTenant(input.ctx);
    const limit = Math.min(Math.max(1, Math.trunc(input.query?.limit ?? 20)), DEVICE_REPORT_LIMITS.listMaxLimit);
    const offset = Math.max(0, Math.trunc(input.query?.offset ?? 0));
    return new ListDeviceReportsCommand(ctx.customer.id, normalizeHwid(input.hwid), limit, offset);
  }
}
