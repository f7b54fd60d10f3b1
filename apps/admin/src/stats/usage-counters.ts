import { REFUSAL_CUSTOMER_NOT_FOUND, type StatsDay } from '@app/contracts';
import type { RequestLogRow } from '../dtos/request-log-entry.js';

/** The customer of requests no account can be charged for (docs/api.md "Usage statistics"). */
export const NO_CUSTOMER = '(none)';

/** The counters of a day, in the order of the daily table's columns. */
export const COUNTER_NAMES = [
  'requests',
  'errors',
  'firmware_uploads',
  'logdata_uploads',
  'firmware_downloads',
  'notes_downloads',
  'logdata_downloads',
  'update_checks',
] as const satisfies ReadonlyArray<Exclude<keyof StatsDay, 'day'>>;
export type CounterName = (typeof COUNTER_NAMES)[number];

const FIRMWARE_UPLOAD_ROUTES = new Set(['PUT /firmware', 'PUT /firmware/', 'PUT /firmware/{hw_name}/{hw_version}/{fw_name}']);
const UPDATE_CHECK_ROUTES = new Set([
  'GET /firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}',
  'GET /firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}/{hwid}',
]);

function success(status: number): boolean {
  return status >= 200 && status < 300;
}

/** A download route answers with a redirect to its signed link (302); counted then, not when the link is followed. */
function handedOut(status: number): boolean {
  return status === 302 || success(status);
}

/**
 * Which counters one request adds to, besides `requests` (every request). The definitions
 * docs/api.md "Usage statistics" gives; a change here changes them.
 */
export function countersOf(method: string, route: string, status: number): readonly CounterName[] {
  const found: CounterName[] = ['requests'];
  if (status >= 400) found.push('errors');
  const key = `${method} ${route}`;
  if (FIRMWARE_UPLOAD_ROUTES.has(key) && success(status)) found.push('firmware_uploads');
  else if (key === 'PUT /logdata/{name}' && success(status)) found.push('logdata_uploads');
  else if (key === 'GET /firmware/{id}/binary' && handedOut(status)) found.push('firmware_downloads');
  else if (key === 'GET /firmware/{id}/notes' && handedOut(status)) found.push('notes_downloads');
  else if (key === 'GET /logdata/{name}' && handedOut(status)) found.push('logdata_downloads');
  else if (UPDATE_CHECK_ROUTES.has(key) && (success(status) || status === 304)) found.push('update_checks');
  return found;
}

/**
 * The customer a request counts for: the entry's domain (the gateway records the customer
 * acted on: `customer=`, else the credential's, else the update check's domain when it
 * exists), `(none)` when there is none or the named customer was refused as not found.
 */
export function chargedDomain(row: Pick<RequestLogRow, 'domain' | 'refusal'>): string {
  if (!row.domain || row.refusal === REFUSAL_CUSTOMER_NOT_FOUND) return NO_CUSTOMER;
  return row.domain;
}

/** One (day, customer) cell of the daily counters, with what a batch adds to it. */
export interface DailyIncrement {
  readonly day: string;
  readonly domain: string;
  readonly counts: Record<CounterName, number>;
}

function zero(): Record<CounterName, number> {
  return { requests: 0, errors: 0, firmware_uploads: 0, logdata_uploads: 0, firmware_downloads: 0, notes_downloads: 0, logdata_downloads: 0, update_checks: 0 };
}

/** A batch summed per (UTC day, customer), sorted by key (upserts in one order: no deadlock between concurrent batches). */
export function dailyIncrements(rows: readonly RequestLogRow[]): DailyIncrement[] {
  const cells = new Map<string, DailyIncrement>();
  for (const row of rows) {
    const day = row.ts.slice(0, 10);
    const domain = chargedDomain(row);
    const key = `${day}\u0001${domain}`;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { day, domain, counts: zero() }));
    for (const name of countersOf(row.method, row.route, row.status)) cell.counts[name]++;
  }
  return [...cells.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, cell]) => cell);
}
