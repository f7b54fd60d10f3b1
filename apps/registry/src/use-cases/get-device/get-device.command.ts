import { type CustomerId, type RequestContext, requireTenant } from '@app/contracts';
import { normalizeHwid } from '../../domain/device-values.js';

/** GET /devices/{hwid} and GET /devices/{hwid}/tags. */
export class GetDeviceCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly hwid: string,
  ) {}

  static create(input: { ctx: RequestContext; hwid: unknown }): GetDeviceCommand {
    return new GetDeviceCommand(requireTenant(input.ctx).customer.id, normalizeHwid(input.hwid));
  }
}
