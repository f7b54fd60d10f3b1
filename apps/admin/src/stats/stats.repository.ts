import { Inject, Injectable } from '@nestjs/common';
import { REFUSAL_CUSTOMER_NOT_FOUND, type RequestLogEntryView, type StatsCustomer, type StatsDay } from '@app/contracts';
import { DataSource } from 'typeorm';
import { queryWithoutJit } from './usage-counter.repository.js';
import { COUNTER_COLUMNS, COUNTER_NAMES, NO_CUSTOMER, UNFOLDED_CELLS } from './usage-counters.js';

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
@Injectable()
export class StatsRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** The counters of each day with any, from `from` to `to` (YYYY-MM-DD, inclusive), of one customer. */
  async days(from: string, to: string, domain: string): Promise<StatsDay[]> {
    const rows = await queryWithoutJit<Record<string, unknown>[]>(
      this.dataSource,
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, ${SUMS} FROM ${COUNTED}
        WHERE day BETWEEN $1::date AND $2::date AND domain = $3
        GROUP BY day ORDER BY day`,
      [from, to, domain],
    );
    return rows.map(dayOf);
  }

  /**
   * Every customer's counters from `from` to `to`: per day (all customers), and per customer
   * (requests, errors and update checks, busiest first). One scan of the counters for both
   * (grouping sets), in one snapshot.
   */
  async summary(from: string, to: string): Promise<{ days: StatsDay[]; customers: StatsCustomer[] }> {
    const rows = await queryWithoutJit<Record<string, unknown>[]>(
      this.dataSource,
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, domain, ${SUMS} FROM ${COUNTED}
        WHERE day BETWEEN $1::date AND $2::date
        GROUP BY GROUPING SETS ((day), (domain))`,
      [from, to],
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
   * Entries newest first, one more than `limit` (the caller tells whether a next page exists).
   * Each filter has an index that reads the range newest first and stops at the page (see the
   * migration RequestLogLeanIngest): domain and ip compare in the "C" collation of theirs. The
   * domain `(none)` selects the entries counted under it (CHARGED_DOMAIN): no customer (the
   * (domain, ts) index), or a named customer refused as not found (the partial index of
   * refusals), a page of each merged.
   */
  async events(filter: RequestLogFilter): Promise<RequestLogEntryView[]> {
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
    parameters.push(filter.limit + 1, filter.offset);
    const [limit, offset] = [`$${parameters.length - 1}`, `$${parameters.length}`];
    const newest = `ORDER BY ts DESC, id DESC`;
    let sql = `SELECT ${EVENT_COLUMNS} FROM admin.request_log WHERE ${where.join(' AND ')} ${newest} LIMIT ${limit} OFFSET ${offset}`;
    if (filter.domain === NO_CUSTOMER) {
      parameters.push(REFUSAL_CUSTOMER_NOT_FOUND);
      const branch = (only: string) =>
        `(SELECT id, ${EVENT_COLUMNS} FROM admin.request_log WHERE ${where.join(' AND ')} AND ${only} ${newest} LIMIT ${limit}::bigint + ${offset}::bigint)`;
      sql = `SELECT ${EVENT_COLUMNS} FROM (${branch('domain IS NULL')} UNION ALL ${branch(`domain IS NOT NULL AND refusal = $${parameters.length}`)}) AS counted_under_none
              ${newest} LIMIT ${limit} OFFSET ${offset}`;
    }
    const rows = await this.dataSource.query<Record<string, unknown>[]>(sql, parameters);
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
    }));
  }
}
