import { Inject, Injectable } from '@nestjs/common';
import { REFUSAL_CUSTOMER_NOT_FOUND, type RequestLogEntryView, type StatsCustomer, type StatsDay } from '@app/contracts';
import { DataSource } from 'typeorm';
import { COUNTER_NAMES, NO_CUSTOMER } from './usage-counters.js';

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

/** Reads of the usage counters (admin.usage_daily) and the request log. Cross-customer: callers pass the customer to narrow to. */
@Injectable()
export class StatsRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** The counters of each day with any, from `from` to `to` (YYYY-MM-DD, inclusive); of one customer when `domain` is given. */
  async days(from: string, to: string, domain?: string): Promise<StatsDay[]> {
    const rows = await this.dataSource.query<Record<string, unknown>[]>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, ${SUMS} FROM admin.usage_daily
        WHERE day BETWEEN $1::date AND $2::date ${domain === undefined ? '' : 'AND domain = $3'}
        GROUP BY day ORDER BY day`,
      domain === undefined ? [from, to] : [from, to, domain],
    );
    return rows.map((r) => {
      const day = { day: String(r.day) } as Record<string, unknown>;
      for (const name of COUNTER_NAMES) day[name] = Number(r[name]);
      return day as StatsDay;
    });
  }

  /** Requests, errors and update checks per customer over the days, busiest first. */
  async customers(from: string, to: string): Promise<StatsCustomer[]> {
    const rows = await this.dataSource.query<Record<string, unknown>[]>(
      `SELECT domain, sum(requests)::bigint AS requests, sum(errors)::bigint AS errors, sum(update_checks)::bigint AS update_checks
         FROM admin.usage_daily WHERE day BETWEEN $1::date AND $2::date
        GROUP BY domain ORDER BY sum(requests) DESC, domain`,
      [from, to],
    );
    return rows.map((r) => ({ domain: String(r.domain), requests: Number(r.requests), errors: Number(r.errors), update_checks: Number(r.update_checks) }));
  }

  /**
   * Entries newest first, one more than `limit` (the caller tells whether a next page exists).
   * The domain `(none)` selects the entries counted under it (chargedDomain): no customer, or
   * a named customer refused as not found.
   */
  async events(filter: RequestLogFilter): Promise<RequestLogEntryView[]> {
    const where = ['ts >= $1', 'ts <= $2'];
    const parameters: unknown[] = [filter.from.toISOString(), filter.to.toISOString()];
    const add = (sql: string, value: unknown) => {
      parameters.push(value);
      where.push(sql.replace('?', `$${parameters.length}`));
    };
    if (filter.domain === NO_CUSTOMER) add('(domain IS NULL OR refusal = ?)', REFUSAL_CUSTOMER_NOT_FOUND);
    else if (filter.domain !== undefined) add('domain = ?', filter.domain);
    if (filter.ip !== undefined) add('ip = ?', filter.ip);
    if (filter.route !== undefined) add('route = ?', filter.route);
    if (filter.status !== undefined) add('status = ?', filter.status);
    parameters.push(filter.limit + 1, filter.offset);
    const rows = await this.dataSource.query<Record<string, unknown>[]>(
      `SELECT ts, domain, actor, method, route, path, status, ip, user_agent, bytes_in, bytes_out, duration_ms, request_id
         FROM admin.request_log WHERE ${where.join(' AND ')}
        ORDER BY ts DESC, id DESC LIMIT $${parameters.length - 1} OFFSET $${parameters.length}`,
      parameters,
    );
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
