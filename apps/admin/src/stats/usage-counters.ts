import { REFUSAL_CUSTOMER_NOT_FOUND, type StatsDay } from '@app/contracts';
import { sqlLiteral } from '@app/infra';

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

/** The columns of admin.usage_daily's keys and counters, in order (and of every cell query below). */
export const COUNTER_COLUMNS = `day, domain, ${COUNTER_NAMES.join(', ')}`;

const FIRMWARE_UPLOAD_ROUTES = ['/firmware', '/firmware/', '/firmware/{hw_name}/{hw_version}/{fw_name}'];
/** The update check's routes (without and with the HW id). */
export const UPDATE_CHECK_ROUTES = [
  '/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}',
  '/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}/{hwid}',
];

/**
 * The entries the request log keeps in bulk (repositories/request-log-bulk.ts, isBulkEntry):
 * update checks answered 200 or 304, for a named customer and without a refusal. Defined here,
 * beside the counters, because the counters count every such entry alike (BULK_ENTRY_AS_COUNTED).
 */
export const BULK_ENTRY = { method: 'GET', routes: UPDATE_CHECK_ROUTES, statuses: [200, 304] } as const;

const SUCCEEDED = 'status BETWEEN 200 AND 299';
/** A download route answers with a redirect to its signed link (302): counted then, not when the link is followed. */
const HANDED_OUT = `(status = 302 OR ${SUCCEEDED})`;
/** An update check answered "nothing newer" (304) did its work as well. */
const CHECKED = `(${SUCCEEDED} OR status = 304)`;

function routeIs(method: string, routes: readonly string[]): string {
  return `method = ${sqlLiteral(method)} AND route IN (${routes.map((route) => sqlLiteral(route)).join(', ')})`;
}

/**
 * Which stored entries each counter counts, as SQL over admin.request_log's columns: the
 * definitions docs/api.md "Usage statistics" gives (a change here changes them). Every request
 * counts in `requests`; a route's work only when it succeeded.
 */
const COUNTED_WHEN: Record<CounterName, string | null> = {
  requests: null,
  errors: 'status >= 400',
  firmware_uploads: `${routeIs('PUT', FIRMWARE_UPLOAD_ROUTES)} AND ${SUCCEEDED}`,
  logdata_uploads: `${routeIs('PUT', ['/logdata/{name}'])} AND ${SUCCEEDED}`,
  firmware_downloads: `${routeIs('GET', ['/firmware/{id}/binary'])} AND ${HANDED_OUT}`,
  notes_downloads: `${routeIs('GET', ['/firmware/{id}/notes'])} AND ${HANDED_OUT}`,
  logdata_downloads: `${routeIs('GET', ['/logdata/{name}'])} AND ${HANDED_OUT}`,
  update_checks: `${routeIs('GET', UPDATE_CHECK_ROUTES)} AND ${CHECKED}`,
};

/**
 * The customer an entry counts for: its domain (the gateway records the customer acted on:
 * `customer=`, else the credential's, else the update check's domain when it exists), `(none)`
 * when there is none or the named customer was refused as not found.
 */
export const CHARGED_DOMAIN = `CASE WHEN domain IS NULL OR refusal = ${sqlLiteral(REFUSAL_CUSTOMER_NOT_FOUND)} THEN ${sqlLiteral(NO_CUSTOMER)} ELSE domain END`;

/**
 * The select list that sums stored entries into (UTC day, customer) cells, as COUNTER_COLUMNS:
 * for a query over entries with admin.request_log's columns (unqualified) and `n`, how many
 * entries the row stands for (1 for a row of the log, a customer's count for a bulk row), that
 * groups by the first two.
 */
export const CELL_OF_ENTRIES = [
  `(ts AT TIME ZONE 'UTC')::date AS day`,
  `${CHARGED_DOMAIN} AS domain`,
  ...COUNTER_NAMES.map((name) => {
    const when = COUNTED_WHEN[name];
    return `coalesce(sum(n) ${when ? `FILTER (WHERE ${when}) ` : ''}, 0)::bigint AS ${name}`;
  }),
].join(', ');

/**
 * An entry kept in bulk (BULK_ENTRY) as the counters see it. They count every such entry alike (a test holds them to it), so a
 * bulk row's entries are counted per customer from its `counts`, without reading its lines.
 */
export const BULK_ENTRY_AS_COUNTED = { method: BULK_ENTRY.method, route: BULK_ENTRY.routes[0], status: BULK_ENTRY.statuses[0] } as const;

/** An upsert's SET list that adds the EXCLUDED row's counters to usage_daily's. */
export const COUNTERS_ADDED = COUNTER_NAMES.map((name) => `${name} = usage_daily.${name} + EXCLUDED.${name}`).join(', ');

/**
 * The entries of the batches `batches` names (rows of batch, first_ts, last_ts), summed into
 * (day, customer) cells as COUNTER_COLUMNS. Each batch's rows are found through the `ts`
 * index within the batch's own time range, and told from other batches' by their `batch`
 * column, so reading them costs no index of its own; its bulk rows (each within one of its
 * ranges) by their batch number, counted per customer.
 */
export function cellsOfBatches(batches: string, { withBulk = true } = {}): string {
  const bulk = BULK_ENTRY_AS_COUNTED;
  const bulkEntries = `UNION ALL
      SELECT bulk.first_ts, customer.domain, ${sqlLiteral(bulk.method)}, ${sqlLiteral(bulk.route)}, ${bulk.status}, NULL, customer.n
        FROM admin.request_log_bulk AS bulk CROSS JOIN LATERAL unnest(bulk.domains, bulk.counts) AS customer(domain, n)
       WHERE bulk.batch = b.batch AND bulk.first_ts BETWEEN b.first_ts AND b.last_ts`;
  // A scan of each batch's range (LATERAL; OFFSET 0 keeps the planner from turning it into a join that reads the whole log)
  return `SELECT ${CELL_OF_ENTRIES}
    FROM ${batches} AS b CROSS JOIN LATERAL (
      (SELECT ts, domain, method, route, status, refusal, 1 AS n FROM admin.request_log
        WHERE ts BETWEEN b.first_ts AND b.last_ts AND batch = b.batch OFFSET 0)
      ${withBulk ? bulkEntries : ''}
    ) AS entry
   GROUP BY 1, 2`;
}

/**
 * The cells of the batches stored but not yet folded into admin.usage_daily (a second's worth
 * while batches arrive). For reads that add them to usage_daily's (the summaries), so a stored
 * batch counts at once.
 */
export const UNFOLDED_CELLS = cellsOfBatches('admin.usage_unfolded');

/**
 * Planner settings of a query that reads the unfolded batches (sql()'s SqlSettings): JIT off.
 * usage_unfolded is emptied and refilled all the time, so its statistics are rarely current;
 * planned for a thousand batches, such a query crosses the JIT cost threshold, and compiling it
 * took 2.3 s for a run of 0.1 s.
 */
export const UNFOLDED_PLANNING = { jit: false } as const;
