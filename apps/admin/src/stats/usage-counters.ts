import { REFUSAL_CUSTOMER_NOT_FOUND, type StatsDay } from '@app/contracts';
import { sqlLiteral } from '@app/infra';
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

/**
 * The counters of (method, route, status), remembered per method, route and status (no key text
 * made per entry): a batch is mostly the same few combinations, and dailyIncrements runs over
 * every stored entry.
 */
const countersCache = new Map<string, Map<string, Map<number, readonly CounterName[]>>>();
const COUNTERS_CACHE_MAX = 10_000;
let cachedRoutes = 0;
function cachedCountersOf(method: string, route: string, status: number): readonly CounterName[] {
  let byRoute = countersCache.get(method);
  if (!byRoute) countersCache.set(method, (byRoute = new Map<string, Map<number, readonly CounterName[]>>()));
  let byStatus = byRoute.get(route);
  if (!byStatus) {
    if (++cachedRoutes > COUNTERS_CACHE_MAX) {
      // routes are the contract's, but an entry's text is not trusted
      for (const routes of countersCache.values()) routes.clear();
      cachedRoutes = 1;
    }
    byRoute.set(route, (byStatus = new Map<number, readonly CounterName[]>()));
  }
  let found = byStatus.get(status);
  if (!found) byStatus.set(status, (found = countersOf(method, route, status)));
  return found;
}

/** A batch summed per (UTC day, customer), sorted by key. */
export function dailyIncrements(rows: readonly RequestLogRow[]): DailyIncrement[] {
  const days = new Map<string, Map<string, DailyIncrement>>();
  let day = '';
  let cellsOfDay = new Map<string, DailyIncrement>();
  let lastDomain: string | null = null;
  let cell: DailyIncrement | undefined;
  for (const row of rows) {
    // Entries come in time order: the day changes rarely within a batch.
    if (day === '' || !row.ts.startsWith(day)) {
      day = row.ts.slice(0, 10);
      const known = days.get(day);
      if (known) cellsOfDay = known;
      else days.set(day, (cellsOfDay = new Map<string, DailyIncrement>()));
      lastDomain = null;
    }
    const domain = chargedDomain(row);
    if (domain !== lastDomain) {
      cell = cellsOfDay.get(domain);
      if (!cell) cellsOfDay.set(domain, (cell = { day, domain, counts: zero() }));
      lastDomain = domain;
    }
    const counts = cell!.counts;
    for (const name of cachedCountersOf(row.method, row.route, row.status)) counts[name]++;
  }
  const cells: DailyIncrement[] = [];
  for (const cellsOfOneDay of days.values()) cells.push(...cellsOfOneDay.values());
  return cells.sort((a, b) => (a.day !== b.day ? (a.day < b.day ? -1 : 1) : a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}

/** The columns of admin.usage_pending (and of usage_daily's keys and counters), in order. */
export const PENDING_COLUMNS = `day, domain, ${COUNTER_NAMES.join(', ')}`;

/**
 * The statement that adds a batch's counters as one admin.usage_pending row: one array per
 * column, one element per (day, customer) cell, values inlined (it travels with the batch's
 * COPY, which takes no parameters: see copyRows); undefined for an empty batch.
 */
export function pendingInsertOf(rows: readonly RequestLogRow[]): string | undefined {
  if (rows.length === 0) return undefined;
  const cells = dailyIncrements(rows);
  const arrays = [
    `${sqlLiteral(cells.map((c) => c.day))}::date[]`,
    `${sqlLiteral(cells.map((c) => c.domain))}::text[]`,
    // counts are integers this function made: written as they are, without sqlLiteral's checks and escapes
    ...COUNTER_NAMES.map((name) => `'{${cells.map((c) => c.counts[name]).join(',')}}'::bigint[]`),
  ];
  return `INSERT INTO admin.usage_pending (${PENDING_COLUMNS}) VALUES (${arrays.join(', ')})`;
}
