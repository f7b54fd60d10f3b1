import { REFUSAL_CUSTOMER_NOT_FOUND, type RequestLogEntryView, type StatsCustomer, type StatsDay } from '@app/contracts';
import { BaseRepository, sql } from '@app/infra';
import type { RequestLogRow } from '../dtos/request-log-entry.js';
import { customerLines, entriesOfLines, jsonQuoted, linesContaining, linesText } from './request-log-bulk.js';
import { BULK_ENTRY, COUNTER_COLUMNS, COUNTER_NAMES, NO_CUSTOMER, UNFOLDED_CELLS, UNFOLDED_PLANNING } from '../stats/usage-counters.js';

/** The request-log filters of GET /admin/stats/events and /stats/events (all optional but the time range). */
export interface RequestLogFilter {
  readonly domain?: string;
  readonly ip?: string;
  readonly route?: string;
  readonly status?: number;
  readonly from: Date;
  readonly to: Date;
  readonly limit: number;
  readonly offset: number;
}

const SUMS = COUNTER_NAMES.map((name) => `sum(${name})::bigint AS ${name}`).join(', ');
/** The counters: the daily ones and the cells of batches not folded into them yet (one snapshot: each batch once). */
const COUNTED = `(SELECT ${COUNTER_COLUMNS} FROM admin.usage_daily UNION ALL ${UNFOLDED_CELLS}) AS counted`;
const EVENT_COLUMNS = 'ts, domain, actor, method, route, path, status, ip, user_agent, bytes_in, bytes_out, duration_ms, request_id';

function dayOf(r: Record<string, unknown>): StatsDay {
  const day = { day: String(r.day) } as Record<string, unknown>;
  for (const name of COUNTER_NAMES) day[name] = Number(r[name]);
  return day as StatsDay;
}

/** Reads of the usage counters (admin.usage_daily) and the request log. Cross-customer: callers pass the customer to narrow to. */
export class StatsRepository extends BaseRepository {
  /** The counters of each day with any, from `from` to `to` (YYYY-MM-DD, inclusive), of one customer. */
  async days(from: string, to: string, domain: string): Promise<StatsDay[]> {
    const { rows } = await sql(
      this.manager,
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, ${SUMS} FROM ${COUNTED}
        WHERE day BETWEEN $1::date AND $2::date AND domain = $3
        GROUP BY day ORDER BY day`,
      [from, to, domain],
      UNFOLDED_PLANNING,
    );
    return rows.map(dayOf);
  }

  /**
   * Every customer's counters from `from` to `to`: per day (all customers), and per customer
   * (requests, errors and update checks, busiest first). One scan of the counters for both
   * (grouping sets), in one snapshot.
   */
  async summary(from: string, to: string): Promise<{ days: StatsDay[]; customers: StatsCustomer[] }> {
    const { rows } = await sql(
      this.manager,
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, domain, ${SUMS} FROM ${COUNTED}
        WHERE day BETWEEN $1::date AND $2::date
        GROUP BY GROUPING SETS ((day), (domain))`,
      [from, to],
      UNFOLDED_PLANNING,
    );
    const days = rows.filter((r) => r.day !== null).map(dayOf);
    const customers = rows
      .filter((r) => r.day === null)
      .map((r) => ({ domain: String(r.domain), requests: Number(r.requests), errors: Number(r.errors), update_checks: Number(r.update_checks) }));
    days.sort((a, b) => (a.day < b.day ? -1 : 1));
    customers.sort((a, b) => b.requests - a.requests || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
    return { days, customers };
  }

  /**
   * Entries newest first, one more than `limit` (the caller tells whether a next page exists):
   * the rows of admin.request_log and the entries kept in bulk (admin.request_log_bulk), merged.
   * A filter that no bulk entry can match (a route or status other than a successful update
   * check's, or `(none)`) reads the rows alone.
   */
  async events(filter: RequestLogFilter): Promise<RequestLogEntryView[]> {
    if (!mayBeInBulk(filter)) return (await this.rowEvents(filter, filter.offset, filter.limit + 1)).map(entryView);
    const wanted = filter.offset + filter.limit + 1;
    const [rows, bulk] = await Promise.all([this.rowEvents(filter, 0, wanted), this.bulkEvents(filter, wanted)]);
    const merged: RequestLogRow[] = [];
    let [r, b] = [0, 0];
    while (merged.length < wanted && (r < rows.length || b < bulk.length)) {
      // newest first; of equal timestamps the rows first
      if (b >= bulk.length || (r < rows.length && rows[r].ts >= bulk[b].ts)) merged.push(rows[r++]);
      else merged.push(bulk[b++]);
    }
    return merged.slice(filter.offset).map(entryView);
  }

  /**
   * Rows of admin.request_log, newest first. Each filter has an index that reads the range
   * newest first and stops at the page (see the migrations RequestLogLeanIngest and RequestLogBulk): domain and ip
   * compare in the "C" collation of theirs. The domain `(none)` selects the entries counted
   * under it (CHARGED_DOMAIN): no customer (the (domain, ts) index), or a named customer refused
   * as not found (the partial index of refusals), a page of each merged.
   */
  private async rowEvents(filter: RequestLogFilter, offset: number, limit: number): Promise<RequestLogRow[]> {
    const where = ['ts >= $1', 'ts <= $2'];
    const parameters: unknown[] = [filter.from.toISOString(), filter.to.toISOString()];
    const add = (sql: string, value: unknown) => {
      parameters.push(value);
      where.push(sql.replace('?', `$${parameters.length}`));
    };
    if (filter.domain !== undefined && filter.domain !== NO_CUSTOMER) add('domain = ? COLLATE "C"', filter.domain);
    if (filter.ip !== undefined) add('ip = ? COLLATE "C"', filter.ip);
    if (filter.route !== undefined) add('route = ?', filter.route);
    if (filter.status !== undefined) add('status = ?', filter.status);
    parameters.push(limit, offset);
    const [limitParameter, offsetParameter] = [`$${parameters.length - 1}`, `$${parameters.length}`];
    const newest = `ORDER BY ts DESC, id DESC`;
    let statement = `SELECT ${EVENT_COLUMNS} FROM admin.request_log WHERE ${where.join(' AND ')} ${newest} LIMIT ${limitParameter} OFFSET ${offsetParameter}`;
    if (filter.domain === NO_CUSTOMER) {
      parameters.push(REFUSAL_CUSTOMER_NOT_FOUND);
      const branch = (only: string) =>
        `(SELECT id, ${EVENT_COLUMNS} FROM admin.request_log WHERE ${where.join(' AND ')} AND ${only} ${newest} LIMIT ${limitParameter}::bigint + ${offsetParameter}::bigint)`;
      statement = `SELECT ${EVENT_COLUMNS} FROM (${branch('domain IS NULL')} UNION ALL ${branch(`domain IS NOT NULL AND refusal = $${parameters.length}`)}) AS counted_under_none
              ${newest} LIMIT ${limitParameter} OFFSET ${offsetParameter}`;
    }
    const { rows } = await sql(this.manager, statement, parameters);
    return rows.map((r) => ({
      ts: new Date(r.ts as string | Date).toISOString(),
      domain: (r.domain as string | null) ?? null,
      actor: (r.actor as string | null) ?? null,
      method: String(r.method),
      route: String(r.route),
      path: String(r.path),
      status: Number(r.status),
      ip: String(r.ip),
      user_agent: String(r.user_agent),
      bytes_in: Number(r.bytes_in),
      bytes_out: Number(r.bytes_out),
      duration_ms: Number(r.duration_ms),
      request_id: String(r.request_id),
      refusal: null,
    }));
  }

  /**
   * The newest `wanted` bulk entries that pass the filter, newest first. Reads the bulk rows of
   * the range newest first (by `last_ts`), a few at a time and twice as many each time, only
   * the rows that hold the customer or the address (GIN indexes), and of those only the
   * customer's part of the lines, or the lines that name the address. Stops once `wanted`
   * entries are newer than every row not read yet.
   */
  private async bulkEvents(filter: RequestLogFilter, wanted: number): Promise<RequestLogRow[]> {
    const [from, to] = [filter.from.toISOString(), filter.to.toISOString()];
    const parameters: unknown[] = [from, to];
    const where = ['last_ts >= $1', 'first_ts <= $2', `first_ts >= date_trunc('day', $1::timestamptz, 'UTC')`];
    let lines = linesText('bulk');
    if (filter.domain !== undefined) {
      parameters.push(filter.domain);
      where.push(`domains @> ARRAY[$${parameters.length}::text]`);
      lines = customerLines('bulk', `$${parameters.length}::text`);
    }
    if (filter.ip !== undefined) {
      parameters.push(filter.ip);
      where.push(`ips @> ARRAY[$${parameters.length}::text]`);
      if (filter.domain === undefined) {
        parameters.push(jsonQuoted(filter.ip));
        lines = linesContaining('bulk', `$${parameters.length}::text`);
      }
    }
    const matches = (e: RequestLogRow) =>
      e.ts >= from &&
      e.ts <= to &&
      (filter.domain === undefined || e.domain === filter.domain) &&
      (filter.ip === undefined || e.ip === filter.ip) &&
      (filter.route === undefined || e.route === filter.route) &&
      (filter.status === undefined || e.status === filter.status);
    const found: RequestLogRow[] = [];
    // Rows picked by a GIN index cost about the same to find few or many: read many at once.
    const picked = filter.domain !== undefined || filter.ip !== undefined;
    let chunk = picked ? BULK_FIRST_PICKED_READ : BULK_FIRST_READ;
    let after: { lastTs: string; batch: string } | null = null;
    for (;;) {
      const keyset: string = after ? ` AND (last_ts, batch) < ($${parameters.length + 1}::timestamptz, $${parameters.length + 2}::bigint)` : '';
      const read = (
        await sql(
          this.manager,
          // the lines read of the page's rows only (the subquery's LIMIT comes first)
          `SELECT last_ts, batch::text AS batch, ${lines} AS lines FROM (
           SELECT last_ts, batch, domains, starts, lines FROM admin.request_log_bulk
            WHERE ${where.join(' AND ')}${keyset} ORDER BY last_ts DESC, batch DESC LIMIT ${chunk}
         ) AS bulk ORDER BY bulk.last_ts DESC, bulk.batch DESC`,
          after ? [...parameters, after.lastTs, after.batch] : parameters,
        )
      ).rows as unknown as BulkRead[];
      for (const row of read) for (const entry of entriesOfLines(row.lines)) if (matches(entry)) found.push(entry);
      if (read.length < chunk) break;
      const last: BulkRead = read[read.length - 1];
      after = { lastTs: new Date(last.last_ts).toISOString(), batch: last.batch };
      // every row not read yet ends at or before `after.lastTs`
      if (found.filter((e) => e.ts > after!.lastTs).length >= wanted) break;
      chunk = Math.min(chunk * 2, filter.domain === undefined ? BULK_MOST_WHOLE_READ : BULK_MOST_PART_READ);
    }
    return found.sort((a, b) => (a.ts > b.ts ? -1 : a.ts < b.ts ? 1 : 0)).slice(0, wanted);
  }
}

/** A bulk row as bulkEvents reads it. */
interface BulkRead {
  readonly last_ts: string | Date;
  readonly batch: string;
  readonly lines: string;
}

/** Bulk rows read at first, and at most at once: whole (about 100 KB each), or a customer's part of each. */
const BULK_FIRST_READ = 2;
const BULK_FIRST_PICKED_READ = 64;
const BULK_MOST_WHOLE_READ = 64;
const BULK_MOST_PART_READ = 1024;

/** Whether an entry kept in bulk (BULK_ENTRY) can pass the filter. */
function mayBeInBulk(filter: RequestLogFilter): boolean {
  return (
    filter.domain !== NO_CUSTOMER &&
    (filter.route === undefined || (BULK_ENTRY.routes as readonly string[]).includes(filter.route)) &&
    (filter.status === undefined || (BULK_ENTRY.statuses as readonly number[]).includes(filter.status))
  );
}

function entryView(e: RequestLogRow): RequestLogEntryView {
  return {
    ts: e.ts,
    domain: e.domain,
    actor: e.actor,
    method: e.method,
    route: e.route,
    path: e.path,
    status: e.status,
    ip: e.ip,
    user_agent: e.user_agent,
    bytes_in: e.bytes_in,
    bytes_out: e.bytes_out,
    duration_ms: e.duration_ms,
    request_id: e.request_id,
  };
}
