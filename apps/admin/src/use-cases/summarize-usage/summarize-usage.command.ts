import { CustomerStatsSummaryQuery, type RequestContext, requireTenant, StatsSummaryQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { instant } from '../../dtos/range-bound.js';

const validAdminQuery = contractCheck(StatsSummaryQuery, { coerce: true, where: 'query parameter' });
const validCustomerQuery = contractCheck(CustomerStatsSummaryQuery, { coerce: true, where: 'query parameter' });

/** GET /admin/stats/summary and GET /stats/summary, validated when built (the defaults are the use case's: they depend on the time). */
export class SummarizeUsageCommand {
  private constructor(
    /** The first day's start, as asked; undefined: the default. */
    readonly from: Date | undefined,
    /** The last day's start, as asked; undefined: today. */
    readonly to: Date | undefined,
    /** The customer's own days; undefined: every customer's, with the customers' totals (administrators). */
    readonly domain: string | undefined,
  ) {}

  static forAdministrators(input: { query: unknown }): SummarizeUsageCommand {
    const query = validAdminQuery(input.query ?? {});
    return new SummarizeUsageCommand(instant(query.from, 'from', undefined, false), instant(query.to, 'to', undefined, false), undefined);
  }

  static forCustomer(input: { ctx: RequestContext; query: unknown }): SummarizeUsageCommand {
    const { customer } = requireTenant(input.ctx);
    const query = validCustomerQuery(input.query ?? {});
    return new SummarizeUsageCommand(instant(query.from, 'from', undefined, false), instant(query.to, 'to', undefined, false), customer.domain);
  }
}
