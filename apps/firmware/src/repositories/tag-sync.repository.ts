import type { CustomerId } from '@app/contracts';
import type { EntityManager } from 'typeorm';
import type { Tenant } from '@app/infra';
import { sql } from '@app/infra';

export interface TagSyncOp {
  readonly id: number;
  readonly customerId: CustomerId;
  readonly kind: 'rename' | 'delete';
  readonly tag: string;
  readonly toTag: string | null;
  readonly attempts: number;
}

/**
 * The outbox of tag renames and deletes for the registry (firmware.tag_sync_op) and the lease
 * that lets one process at a time replay a customer's pending operations, in order. Bound to an
 * EntityManager by FirmwareStore.
 */
export class TagSyncRepository {
  constructor(private readonly manager: EntityManager) {}

  /** Records a rename (`toTag` set) or delete for the registry, with the builds' change: its id. */
  async record(query: Tenant<{ kind: 'rename' | 'delete'; tag: string; toTag?: string }>): Promise<number> {
    const { rows } = await sql(this.manager, `INSERT INTO firmware.tag_sync_op (customer_id, kind, tag, to_tag) VALUES ($1, $2, $3, $4) RETURNING id`, [
      query.customerId,
      query.kind,
      query.tag,
      query.toTag ?? null,
    ]);
    return Number(rows[0].id);
  }

  async nextPending(query: Tenant): Promise<TagSyncOp | null> {
    const { rows } = await sql(
      this.manager,
      `SELECT id, customer_id, kind, tag, to_tag, attempts FROM firmware.tag_sync_op WHERE customer_id = $1 AND applied_at IS NULL ORDER BY id LIMIT 1`,
      [query.customerId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: Number(row.id),
      customerId: String(row.customer_id) as CustomerId,
      kind: row.kind === 'rename' ? 'rename' : 'delete',
      tag: String(row.tag),
      toTag: row.to_tag === null || row.to_tag === undefined ? null : String(row.to_tag),
      attempts: Number(row.attempts),
    };
  }

  async markApplied(query: Tenant<{ id: number }>): Promise<void> {
    await sql(
      this.manager,
      `UPDATE firmware.tag_sync_op SET applied_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = $1 AND customer_id = $2`,
      [query.id, query.customerId],
    );
  }

  async markFailed(query: Tenant<{ id: number; error: string }>): Promise<void> {
    await sql(this.manager, `UPDATE firmware.tag_sync_op SET attempts = attempts + 1, last_error = $3 WHERE id = $1 AND customer_id = $2`, [
      query.id,
      query.customerId,
      query.error.slice(0, 1000),
    ]);
  }

  async isApplied(query: Tenant<{ id: number }>): Promise<boolean> {
    const { rows } = await sql(this.manager, `SELECT applied_at FROM firmware.tag_sync_op WHERE id = $1 AND customer_id = $2`, [query.id, query.customerId]);
    return rows.length > 0 && rows[0].applied_at !== null;
  }

  /** Customers with operations the registry has not applied yet (cross-tenant: the start-up sweep). */
  async customersWithPending(): Promise<CustomerId[]> {
    const { rows } = await sql(this.manager, `SELECT DISTINCT customer_id FROM firmware.tag_sync_op WHERE applied_at IS NULL`);
    return rows.map((row) => String(row.customer_id) as CustomerId);
  }

  /** Takes the customer's lease unless another owner holds an unexpired one. */
  async acquireLease(query: Tenant<{ owner: string; ttlMs: number }>): Promise<boolean> {
    const { rows } = await sql(
      this.manager,
      `INSERT INTO firmware.tag_sync_lease (customer_id, owner, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT ON CONSTRAINT tag_sync_lease_pkey DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE firmware.tag_sync_lease.expires_at < now() OR firmware.tag_sync_lease.owner = EXCLUDED.owner
       RETURNING owner`,
      [query.customerId, query.owner, query.ttlMs],
    );
    return rows.length > 0;
  }

  async releaseLease(query: Tenant<{ owner: string }>): Promise<void> {
    await sql(this.manager, `DELETE FROM firmware.tag_sync_lease WHERE customer_id = $1 AND owner = $2`, [query.customerId, query.owner]);
  }
}
