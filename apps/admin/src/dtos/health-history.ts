import type { HealthHistory } from '@app/contracts';

export interface DailyHealthCounts {
  /** YYYY-MM-DD (UTC). */
  readonly day: string;
  readonly samples: number;
  readonly ok: number;
  readonly degraded: number;
  readonly down: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Start (inclusive) and end (exclusive) of the last `days` UTC days, today included. */
export function historyWindow(days: number, now: Date): { from: Date; to: Date } {
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { from: new Date(todayStart - (days - 1) * DAY_MS), to: new Date(todayStart + DAY_MS) };
}

/**
 * One entry per day of the window, newest first, every day present: a day without samples
 * shows samples 0 and uptime_ratio null (unknown, not down). uptime_ratio = ok / samples.
 */
export function toHealthHistory(counts: readonly DailyHealthCounts[], days: number, now: Date): HealthHistory {
  const byDay = new Map(counts.map((c) => [c.day, c]));
  const { to } = historyWindow(days, now);
  const result: HealthHistory['days'] = [];
  for (let i = 1; i <= days; i++) {
    const day = new Date(to.getTime() - i * DAY_MS).toISOString().slice(0, 10);
    const c = byDay.get(day);
    const samples = c?.samples ?? 0;
    result.push({
      day,
      samples,
      ok: c?.ok ?? 0,
      degraded: c?.degraded ?? 0,
      down: c?.down ?? 0,
      uptime_ratio: samples > 0 ? c!.ok / samples : null,
    });
  }
  return { days: result };
}
