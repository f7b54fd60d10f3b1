import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors, type AdminStatsSummary, type CustomerStatsSummary, type StatsDay } from '@app/contracts';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';
import { COUNTER_NAMES } from '../../stats/usage-counters.js';
import type { SummarizeUsageCommand } from './summarize-usage.command.js';

/** Defaults and bounds of the range (docs/api.md "Usage statistics"). */
const SUMMARY_DEFAULT_DAYS = 30;
/** The longest summary: a bound on the days listed (the counters outlive the request log). */
const SUMMARY_MAX_DAYS = 3660;
const DAY_MS = 86_400_000;

/**
 * The daily usage counters of a range of UTC days, every day listed: every customer's with the
 * customers' totals (administrators), or one customer's own.
 */
@Injectable()
export class SummarizeUsage {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: SummarizeUsageCommand): Promise<AdminStatsSummary | CustomerStatsSummary> {
    const range = this.range(command);
    if (command.domain !== undefined) return { ...range, days: everyDay(range, await this.adminStore.repos.stats.days(range.from, range.to, command.domain)) };
    const { days, customers } = await this.adminStore.repos.stats.summary(range.from, range.to);
    return { ...range, days: everyDay(range, days), customers };
  }

  private range(command: SummarizeUsageCommand): { from: string; to: string } {
    const now = this.clock.now();
    const from = dayOf(command.from ?? new Date(now.getTime() - SUMMARY_DEFAULT_DAYS * DAY_MS));
    const to = dayOf(command.to ?? now);
    if (from > to) throw AdminErrors.range_reversed();
    if ((Date.parse(to) - Date.parse(from)) / DAY_MS >= SUMMARY_MAX_DAYS) throw AdminErrors.range_too_long({ maxDays: SUMMARY_MAX_DAYS });
    return { from, to };
  }
}

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
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
