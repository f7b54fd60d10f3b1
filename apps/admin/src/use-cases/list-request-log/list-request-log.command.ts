import { AdminStatsEventsQuery, CustomerStatsEventsQuery, type RequestContext, requireTenant } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { instant } from '../../dtos/range-bound.js';

const validAdminQuery = contractCheck(AdminStatsEventsQuery, { coerce: true, where: 'query parameter' });
const validCustomerQuery = contractCheck(CustomerStatsEventsQuery, { coerce: true, where: 'query parameter' });

/** GET /admin/stats/events and GET /stats/events, validated when built (the default range is the use case's: it depends on the time). */
export class ListRequestLogCommand {
  private constructor(
    readonly from: Date | undefined,
    readonly to: Date | undefined,
    readonly route: string | undefined,
    readonly status: number | undefined,
    readonly limit: number,
    readonly offset: number,
    readonly domain: string | undefined,
    readonly ip: string | undefined,
    /** A customer's own entries: addresses are cut to their network. */
    readonly forCustomer: boolean,
  ) {}

  static forAdministrators(input: { query: unknown }): ListRequestLogCommand {
    const query = validAdminQuery(input.query ?? {});
    const domain = query.domain?.trim().toLowerCase() || undefined;
    return ListRequestLogCommand.of(query, domain, query.ip?.trim() || undefined, false);
  }

  /** The customer's own entries (those the gateway recorded for it). */
  static forCustomer(input: { ctx: RequestContext; query: unknown }): ListRequestLogCommand {
    const { customer } = requireTenant(input.ctx);
    return ListRequestLogCommand.of(validCustomerQuery(input.query ?? {}), customer.domain, undefined, true);
  }

  private static of(query: CustomerStatsEventsQuery | AdminStatsEventsQuery, domain: string | undefined, ip: string | undefined, forCustomer: boolean) {
    const from = instant(query.from, 'from', undefined, false);
    const to = instant(query.to, 'to', undefined, true);
    return new ListRequestLogCommand(from, to, query.route, query.status, query.limit ?? 100, query.offset ?? 0, domain, ip, forCustomer);
  }
}
