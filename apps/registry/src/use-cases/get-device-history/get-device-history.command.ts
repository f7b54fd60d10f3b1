import { type CustomerId, DeviceHistoryQuery, type RequestContext, requireTenant } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { normalizeHwid } from '../../domain/device-values.js';

const validQuery = contractCheck(DeviceHistoryQuery, { coerce: true, where: 'query parameter' });

/** GET /devices/{hwid}/history, validated when built. */
export class GetDeviceHistoryCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly hwid: string,
    readonly limit: number,
    readonly offset: number,
  ) {}

  static create(input: { ctx: RequestContext; hwid: unknown; query: unknown }): GetDeviceHistoryCommand {
    const query = validQuery(input.query ?? {});
    return new GetDeviceHistoryCommand(requireTenant(input.ctx).customer.id, normalizeHwid(input.hwid), query.limit ?? 100, query.offset ?? 0);
  }
}
