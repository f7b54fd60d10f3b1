import { Inject, Injectable } from '@nestjs/common';
import type { CustomerRef } from '@app/contracts';
import { DataSource } from 'typeorm';

export interface AuditRow {
  readonly ts: string;
  readonly domain: string | null;
  readonly actor: string;
  readonly action: string;
  readonly target_type: string;
  readonly target_id: string;
  readonly before: Record<string, unknown> | null;
  readonly after: Record<string, unknown> | null;
}

/** A position in the log (newest first: by ts, then id): the entries listed after it are older. */
export interface AuditPosition {
  readonly ts: string;
  readonly id: string;
}

/** The filters and page of an audit list (docs/api.md "The audit log"); every filter is an exact match. */
export interface AuditFilter {
  readonly action?: string;
  readonly actor?: string;
  /** Only administrators' entries (actor `admin:...`). */
  readonly administrators?: boolean;
  readonly targetType?: string;
  readonly targetId?: string;
  readonly from?: Date;
  readonly to?: Date;
  /** Only entries older than this position (a cursor). */
  readonly before?: AuditPosition;
  readonly limit: number;
  readonly offset: number;
}

export interface ListedAuditRow extends AuditRow {
  /** The entry's number: with `ts`, its position for a cursor. */
  readonly id: string;
}

/** Every query of admin.audit_log. */
@Injectable()
export class AuditRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** `eventId`: the producer's id of the entry; an id stored before is skipped (false). */
  async insert(row: AuditRow, eventId: string | null = null): Promise<boolean> {
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO admin.audit_log (ts, domain, actor, action, target_type, target_id, before, after, event_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9)
       ON CONFLICT (event_id) DO NOTHING
       RETURNING id`,
      [row.ts, row.domain, row.actor, row.action, row.target_type, row.target_id, json(row.before), json(row.after), eventId],
    );
    return inserted.length > 0;
  }

  /** Every customer's entries (and the service's own), newest first; `domain` narrows to one customer. */
  async list(filter: AuditFilter & { readonly domain?: string }): Promise<ListedAuditRow[]> {
    const where = new Conditions();
    if (filter.domain !== undefined) where.add((p) => `domain = ${p}`, filter.domain);
    return this.page(where, filter);
  }

  /**
   * One customer's entries, newest first. A domain can be given again to a new customer after
   * the old one is deleted (its entries stay in the log): only the entries since the customer's
   * latest `customer.create` are its own.
   */
  async listOfCustomer(filter: AuditFilter & { readonly customer: CustomerRef }): Promise<ListedAuditRow[]> {
    const where = new Conditions();
    const domain = where.add((p) => `domain = ${p}`, filter.customer.domain);
    where.add(
      (p) => `ts >= COALESCE((SELECT max(created.ts) FROM admin.audit_log AS created WHERE created.domain = ${domain} AND created.action = ${p}), '-infinity')`,
      CUSTOMER_CREATED,
    );
    return this.page(where, filter);
  }

  /** `limit + 1` rows from the filter's position (the extra row tells a next page exists). */
  private async page(where: Conditions, filter: AuditFilter): Promise<ListedAuditRow[]> {
    if (filter.action !== undefined) where.add((p) => `action = ${p}`, filter.action);
    if (filter.actor !== undefined) where.add((p) => `actor = ${p}`, filter.actor);
    // Written out, not a parameter: the planner matches it to the partial index of administrators' entries.
    if (filter.administrators) where.condition(`actor LIKE 'admin:%'`);
    if (filter.targetType !== undefined) where.add((p) => `target_type = ${p}`, filter.targetType);
    if (filter.targetId !== undefined) where.add((p) => `target_id = ${p}`, filter.targetId);
    if (filter.from !== undefined) where.add((p) => `ts >= ${p}`, filter.from.toISOString());
    if (filter.to !== undefined) where.add((p) => `ts <= ${p}`, filter.to.toISOString());
    if (filter.before !== undefined) {
      const ts = where.parameter(filter.before.ts);
      where.add((p) => `(ts, id) < (${ts}::timestamptz, ${p}::bigint)`, filter.before.id);
    }
    const limit = where.parameter(filter.limit + 1);
    const offset = where.parameter(filter.offset);
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT id::text AS id, ts, domain, actor, action, target_type, target_id, before, after
         FROM admin.audit_log
        ${where.sql()}
        ORDER BY ts DESC, id DESC
        LIMIT ${limit} OFFSET ${offset}`,
      where.parameters,
    );
    return rows.map((r) => ({
      id: String(r.id),
      ts: toIso(r.ts),
      domain: (r.domain as string | null) ?? null,
      actor: String(r.actor),
      action: String(r.action),
      target_type: String(r.target_type),
      target_id: String(r.target_id),
      before: object(r.before),
      after: object(r.after),
    }));
  }
}

/** The action of the entry that opens a customer (identity's create-customer use case). */
const CUSTOMER_CREATED = 'customer.create';

/** A WHERE clause built from the filters given: absent filters add no condition, so each query can use its index. */
class Conditions {
  readonly parameters: unknown[] = [];
  private readonly conditions: string[] = [];

  /** `$n` of a new parameter. */
  parameter(value: unknown): string {
    this.parameters.push(value);
    return `$${this.parameters.length}`;
  }

  /** Adds a condition on a new parameter; returns the parameter's `$n`. */
  add(condition: (parameter: string) => string, value: unknown): string {
    const parameter = this.parameter(value);
    this.conditions.push(condition(parameter));
    return parameter;
  }

  /** Adds a condition without a parameter. */
  condition(condition: string): void {
    this.conditions.push(condition);
  }

  sql(): string {
    return this.conditions.length === 0 ? '' : `WHERE ${this.conditions.join(' AND ')}`;
  }
}

export function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

export function object(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return JSON.parse(value) as Record<string, unknown>;
  return value as Record<string, unknown>;
}

export function toIso(value: unknown): string {
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}
