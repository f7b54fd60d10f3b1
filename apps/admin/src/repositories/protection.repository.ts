import type { EnforcedIpBlock, IpBlockView } from '@app/contracts';
import { BaseRepository, sql, toIso } from '@app/infra';
import type { EntityManager } from 'typeorm';

export interface MaintenanceRow {
  readonly enabled: boolean;
  /** null: the default message. */
  readonly message: string | null;
}

export interface IpBlockRow {
  readonly cidr: string;
  readonly reason: string | null;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
}

/** Every query of admin.maintenance_setting and admin.ip_blocks. Each change bumps the revision in its transaction. */
export class ProtectionRepository extends BaseRepository {
  async maintenance(): Promise<MaintenanceRow> {
    const {
      rows: [row],
    } = await sql(this.manager, `SELECT enabled, message FROM admin.maintenance_setting WHERE id = 1`);
    return { enabled: row?.enabled === true, message: (row?.message as string | null) ?? null };
  }

  /** Sets the setting; returns it before and after, and the new revision. Run it in a transaction (AdminStore.transaction). */
  async setMaintenance(value: MaintenanceRow, actor: string, now: Date): Promise<{ before: MaintenanceRow; after: MaintenanceRow; revision: string }> {
    const {
      rows: [old],
    } = await sql(this.manager, `SELECT enabled, message FROM admin.maintenance_setting WHERE id = 1 FOR UPDATE`);
    const [row] = (
      await sql(
        this.manager,
        `UPDATE admin.maintenance_setting SET enabled = $1, message = $2, updated_by = $3, updated_at = $4, revision = revision + 1
          WHERE id = 1 RETURNING revision`,
        [value.enabled, value.message, actor, now.toISOString()],
      )
    ).rows;
    return {
      before: { enabled: old?.enabled === true, message: (old?.message as string | null) ?? null },
      after: value,
      revision: String(row.revision),
    };
  }

  /** Creates the block of a network, or replaces the one it has (active or expired); returns the one replaced. Run it in a transaction (AdminStore.transaction). */
  async putBlock(block: IpBlockRow): Promise<{ before: IpBlockRow | null; revision: string }> {
    const {
      rows: [old],
    } = await sql(this.manager, `SELECT * FROM admin.ip_blocks WHERE cidr = $1 FOR UPDATE`, [block.cidr]);
    await sql(
      this.manager,
      `INSERT INTO admin.ip_blocks (cidr, reason, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (cidr) DO UPDATE SET reason = EXCLUDED.reason, created_by = EXCLUDED.created_by,
         created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
      [block.cidr, block.reason, block.createdBy, block.createdAt.toISOString(), block.expiresAt?.toISOString() ?? null],
    );
    return { before: old ? blockRow(old) : null, revision: await bump(this.manager) };
  }

  /** Removes the block of a network; null when there is none. Run it in a transaction (AdminStore.transaction). */
  async deleteBlock(cidr: string): Promise<{ before: IpBlockRow; revision: string } | null> {
    const rows = (await sql(this.manager, `DELETE FROM admin.ip_blocks WHERE cidr = $1 RETURNING *`, [cidr])).rows;
    if (rows.length === 0) return null;
    return { before: blockRow(rows[0]), revision: await bump(this.manager) };
  }

  /** Newest first; expired ones too when `all`. */
  async listBlocks(all: boolean, now: Date): Promise<IpBlockView[]> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT * FROM admin.ip_blocks WHERE $1 OR expires_at IS NULL OR expires_at > $2 ORDER BY created_at DESC, cidr`,
      [all, now.toISOString()],
    );
    return rows.map((r) => blockView(blockRow(r)));
  }

  async revision(): Promise<string> {
    const {
      rows: [row],
    } = await sql(this.manager, `SELECT revision FROM admin.maintenance_setting WHERE id = 1`);
    return String(row?.revision ?? 0);
  }

  /**
   * The setting, the blocks in force at `now` and their revision. The revision is read first:
   * a change in between makes the blocks newer than it, never older, so the next re-read fetches again.
   */
  async enforced(now: Date): Promise<{ revision: string; maintenance: MaintenanceRow; blocks: EnforcedIpBlock[] }> {
    const {
      rows: [setting],
    } = await sql(this.manager, `SELECT enabled, message, revision FROM admin.maintenance_setting WHERE id = 1`);
    const { rows: rows } = await sql(this.manager, `SELECT cidr, expires_at FROM admin.ip_blocks WHERE expires_at IS NULL OR expires_at > $1`, [
      now.toISOString(),
    ]);
    return {
      revision: String(setting?.revision ?? 0),
      maintenance: { enabled: setting?.enabled === true, message: (setting?.message as string | null) ?? null },
      blocks: rows.map((r) => ({ cidr: String(r.cidr), expires_at: r.expires_at === null ? null : toIso(r.expires_at) })),
    };
  }
}

/** A new revision of the protection state, in the caller's transaction (also after a restore replaced the IP blocks). */
export async function bumpProtectionRevision(m: EntityManager): Promise<string> {
  return bump(m);
}

async function bump(m: EntityManager): Promise<string> {
  const [row] = (await sql(m, `UPDATE admin.maintenance_setting SET revision = revision + 1 WHERE id = 1 RETURNING revision`)).rows;
  return String(row.revision);
}

function blockRow(r: Record<string, unknown>): IpBlockRow {
  return {
    cidr: String(r.cidr),
    reason: (r.reason as string | null) ?? null,
    createdBy: String(r.created_by),
    createdAt: new Date(toIso(r.created_at)),
    expiresAt: r.expires_at === null || r.expires_at === undefined ? null : new Date(toIso(r.expires_at)),
  };
}

export function blockView(row: IpBlockRow): IpBlockView {
  return {
    cidr: row.cidr,
    reason: row.reason,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
  };
}
