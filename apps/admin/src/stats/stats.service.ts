import { Inject, Injectable } from '@nestjs/common';
import {
  type AdminStatsEventsQuery,
  type AdminStatsSummary,
  type CustomerStatsEventsQuery,
  type CustomerStatsSummary,
  type CustomerStatsSummaryQuery,
  type EndpointCall,
  type NoParams,
  type RequestLogPage,
  requireTenant,
  AdminErrors,
  type StatsDay,
  type StatsSummaryQuery,
} from '@app/contracts';
import { instant } from '../dtos/range-bound.js';
import { Clock } from '../services/clock.js';
import { networkOf } from './network-of.js';
import { type RequestLogFilter } from '../repositories/stats.repository.js';
import { COUNTER_NAMES } from './usage-counters.js';
import { AdminStore } from '../repositories/admin.store.js';

/** Defaults of the ranges (docs/api.md "Usage statistics"). */
const SUMMARY_DEFAULT_DAYS = 30;
const EVENTS_DEFAULT_DAYS = 7;
/** The longest summary: a bound on the days listed (the counters outlive the request log). */
const SUMMARY_MAX_DAYS = 3660;
const DAY_MS = 86_400_000;

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** GET /admin/stats/*, /stats/*: the daily usage counters and the request log. */
@Injectable()
export class StatsService {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async adminSummary(call: EndpointCall<NoParams, StatsSummaryQuery, undefined>): Promise<AdminStatsSummary> {
    const range = this.summaryRange(call.query ?? {});
    const { days, customers } = await this.adminStore.repos.stats.summary(range.from, range.to);
    return { ...range, days: everyDay(range, days), customers };
  }

  async customerSummary(call: EndpointCall<NoParams, CustomerStatsSummaryQuery, undefined>): Promise<CustomerStatsSummary> {
    const { customer } = requireTenant(call.ctx);
    const range = this.summaryRange(call.query ?? {});
    return { ...range, days: everyDay(range, await this.adminStore.repos.stats.days(range.from, range.to, customer.domain)) };
  }

  async adminEvents(call: EndpointCall<NoParams, AdminStatsEventsQuery, undefined>): Promise<RequestLogPage> {
    const query = call.query ?? ({} as AdminStatsEventsQuery);
    const domain = query.domain?.trim().toLowerCase() || undefined;
    return this.page({ ...this.eventsFilter(query), domain, ip: query.ip?.trim() || undefined });
  }

  /** The customer's own entries (those the gateway recorded for it), addresses cut to their network. */
  async customerEvents(call: EndpointCall<NoParams, CustomerStatsEventsQuery, undefined>): Promise<RequestLogPage> {
    const { customer } = requireTenant(call.ctx);
    const page = await this.page({ ...this.eventsFilter(call.query ?? ({} as CustomerStatsEventsQuery)), domain: customer.domain });
    return { ...page, items: page.items.map((item) => ({ ...item, ip: networkOf(item.ip) })) };
  }

  private async page(filter: RequestLogFilter): Promise<RequestLogPage> {
    const rows = await this.adminStore.repos.stats.events(filter);
    const more = rows.length > filter.limit;
    return { items: more ? rows.slice(0, filter.limit) : rows, next_offset: more ? filter.offset + filter.limit : null };
  }

  private eventsFilter(query: CustomerStatsEventsQuery | AdminStatsEventsQuery): RequestLogFilter {
    const now = this.clock.now();
    const from = instant(query.from, 'from', new Date(now.getTime() - EVENTS_DEFAULT_DAYS * DAY_MS), false);
    const to = instant(query.to, 'to', now, true);
    if (from > to) throw AdminErrors.range_reversed();
    return { from, to, route: query.route, status: query.status, limit: query.limit ?? 100, offset: query.offset ?? 0 };
  }

  private summaryRange(query: StatsSummaryQuery): { from: string; to: string } {
    const now = this.clock.now();
    const from = dayOf(instant(query.from, 'from', new Date(now.getTime() - SUMMARY_DEFAULT_DAYS * DAY_MS), false));
    const to = dayOf(instant(query.to, 'to', now, false));
    if (from > to) throw AdminErrors.range_reversed();
    if ((Date.parse(to) - Date.parse(from)) / DAY_MS >= SUMMARY_MAX_DAYS) throw AdminErrors.range_too_long({ maxDays: SUMMARY_MAX_DAYS });
    return { from, to };
  }
}

/** Every day of the range, with zeros where nothing was counted (a chart needs no gaps). */
function everyDay(range: { from: string; to: string }, counted: readonly StatsDay[]): StatsDay[] {
  const byDay = new Map(counted.map((d) => [d.day, d]));
  const days: StatsDay[] = [];
  for (let t = Date.parse(range.from); t <= Date.parse(range.to); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    days.push(byDay.get(day) ?? (Object.fromEntries([['day', day], ...COUNTER_NAMES.map((n) => [n, 0])]) as StatsDay));
  }
  return days;
}
