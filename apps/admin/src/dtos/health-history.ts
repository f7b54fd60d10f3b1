import { HEALTH_PARTS, type HealthHistory, type PartDayEntry } from '@app/contracts';

/** The daily row of the whole service (health_daily.part); the parts use their HEALTH_PARTS names. */
export const SERVICE_PART = 'service';

/** One part's samples of one UTC day, as health_daily holds them. */
export interface DailyPartCounts {
  /** YYYY-MM-DD (UTC). */
  readonly day: string;
  /** SERVICE_PART or a HEALTH_PARTS name. */
  readonly part: string;
  readonly samples: number;
  readonly up: number;
  readonly degraded: number;
  readonly down: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Start (inclusive) and end (exclusive) of the last `days` UTC days, today included. */
export function historyWindow(days: number, now: Date): { from: Date; to: Date } {
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { from: new Date(todayStart - (days - 1) * DAY_MS), to: new Date(todayStart + DAY_MS) };
}

/** The window's days as YYYY-MM-DD, newest first. */
export function historyDays(days: number, now: Date): string[] {
  const { to } = historyWindow(days, now);
  return Array.from({ length: days }, (_, i) => new Date(to.getTime() - (i + 1) * DAY_MS).toISOString().slice(0, 10));
}

const ratio = (part: number, samples: number): number | null => (samples > 0 ? part / samples : null);

/**
 * One entry per day of the window, newest first, every day present, for the whole service and
 * for each part: a day without samples shows samples 0 and uptime_ratio null (no data, not
 * 100 % and not down).
 */
export function toHealthHistory(counts: readonly DailyPartCounts[], days: number, now: Date): HealthHistory {
  const byKey = new Map(counts.map((c) => [`${c.part}/${c.day}`, c]));
  const window = historyDays(days, now);
  return {
    days: window.map((day) => {
      const c = byKey.get(`${SERVICE_PART}/${day}`);
      const samples = c?.samples ?? 0;
      return { day, samples, ok: c?.up ?? 0, degraded: c?.degraded ?? 0, down: c?.down ?? 0, uptime_ratio: ratio(c?.up ?? 0, samples) };
    }),
    parts: HEALTH_PARTS.map((part) => ({
      part,
      days: window.map((day): PartDayEntry => {
        const c = byKey.get(`${part}/${day}`);
        const samples = c?.samples ?? 0;
        return { day, samples, up: c?.up ?? 0, down: samples - (c?.up ?? 0), uptime_ratio: ratio(c?.up ?? 0, samples) };
      }),
    })),
  };
}
