import { AdminErrors } from '@app/contracts';

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A query's date or timestamp (`from`, `to` of the statistics and the audit log); a date alone
 * means the start of its day (or its end, for an upper bound), in UTC.
 */
export function instant(value: string | undefined, name: string, fallback: Date, endOfDay: boolean): Date;
export function instant(value: string | undefined, name: string, fallback: undefined, endOfDay: boolean): Date | undefined;
export function instant(value: string | undefined, name: string, fallback: Date | undefined, endOfDay: boolean): Date | undefined {
  if (value === undefined) return fallback;
  const parsed = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(parsed.getTime())) throw AdminErrors.range_bound_invalid({ name });
  return DATE_ONLY.test(value) && endOfDay ? new Date(parsed.getTime() + DAY_MS - 1) : parsed;
}
