import type { AuditEntryInput, CustomerRef } from '@app/contracts';
import { BaseRepository, jsonParam, sql, SqlConditions, toIso, toJsonObject } from '@app/infra';

/** A stored audit entry: the contract's entry as the admin app receives it. */
export type AuditRow = AuditEntryInput;

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
export class AuditRepository extends BaseRepository {
  /** `eventId`: the producer's id of the entry; an id stored before is skipped (false). */
  async insert(row: AuditRow, eventId: string | null = null): Promise<boolean> {
    const { rows: inserted } = await sql(
      this.manager,
      `INSERT INTO admin.audit_log (ts, domain, actor, action, target_type, target_id, before, after, event_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9)
       ON CONFLICT (event_id) DO NOTHING
       RETURNING id`,
      [row.ts, row.domain, row.actor, row.action, row.target_type, row.target_id, jsonParam(row.before), jsonParam(row.after), eventId],
    );
    return inserted.length > 0;
  }

  /** Every customer's entries (and the service's own), newest first; `domain` narrows to one customer. */
  async list(filter: AuditFilter & { readonly domain?: string }): Promise<ListedAuditRow[]> {
    const where = new SqlConditions();
    if (filter.domain !== undefined) where.add((p) => `domain = ${p}`, filter.domain);
    return this.page(where, filter);
  }

  /**
   * One customer's entries, newest first. A domain can be given again to a new customer after
   * the old one is deleted (its entries stay in the log): only the entries since the customer's
   * latest `customer.create` are its own.
   */
  async listOfCustomer(filter: AuditFilter & { readonly customer: CustomerRef }): Promise<ListedAuditRow[]> {
    const where = new SqlConditions();
    const domain = where.add((p) => `domain = ${p}`, filter.customer.domain);
    where.add(
      (p) => `ts >= COALESCE((SELECT max(created.ts) FROM admin.audit_log AS created WHERE created.domain = ${domain} AND created.action = ${p}), '-infinity')`,
      CUSTOMER_CREATED,
    );
    return this.page(where, filter);
  }

  /** `limit + 1` rows from the filter's position (the extra row tells a next page exists). */
  private async page(where: SqlConditions, filter: AuditFilter): Promise<ListedAuditRow[]> {
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
    const { rows: rows } = await sql(
      this.manager,
      `SELECT id::text AS id, ts, domain, actor, action, target_type, target_id, before, after
         FROM admin.audit_log
        ${where.where()}
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
      before: toJsonObject(r.before),
      after: toJsonObject(r.after),
    }));
  }
}

/** The action of the entry that opens a customer (identity's create-customer use case). */
const CUSTOMER_CREATED = 'customer.create';
