import type { SecuritySeverity } from '@app/contracts';
import { BaseRepository, jsonParam, sql, toIso, toJsonObject } from '@app/infra';

/** What GET /admin/security/events lists. */
export interface SecurityEventFilter {
  readonly kind?: string;
  readonly severity?: SecuritySeverity;
  readonly unacked?: boolean;
  readonly limit: number;
}

export interface SecurityEventRow {
  readonly id: number;
  readonly ts: string;
  readonly kind: string;
  readonly severity: SecuritySeverity;
  readonly ip: string | null;
  readonly domain: string | null;
  readonly detail: Record<string, unknown>;
  readonly notified_at: string | null;
  readonly acked_at: string | null;
  readonly acked_by: string | null;
}

const COLUMNS = 'id, ts, kind, severity, ip, domain, detail, notified_at, acked_at, acked_by';

function toRow(r: Record<string, unknown>): SecurityEventRow {
  return {
    id: Number(r.id),
    ts: toIso(r.ts),
    kind: String(r.kind),
    severity: r.severity as SecuritySeverity,
    ip: (r.ip as string | null) ?? null,
    domain: (r.domain as string | null) ?? null,
    detail: toJsonObject(r.detail) ?? {},
    notified_at: r.notified_at ? toIso(r.notified_at) : null,
    acked_at: r.acked_at ? toIso(r.acked_at) : null,
    acked_by: (r.acked_by as string | null) ?? null,
  };
}

/** Every query of admin.security_event. */
export class SecurityEventRepository extends BaseRepository {
  /** `eventId`: the producer's id of the event; an id stored before is skipped (null). */
  async insert(event: Omit<SecurityEventRow, 'id' | 'notified_at' | 'acked_at' | 'acked_by'>, eventId: string | null = null): Promise<SecurityEventRow | null> {
    const { rows: rows } = await sql(
      this.manager,
      `INSERT INTO admin.security_event (ts, kind, severity, ip, domain, detail, event_id) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
       ON CONFLICT (event_id) DO NOTHING RETURNING ${COLUMNS}`,
      [event.ts, event.kind, event.severity, event.ip, event.domain, jsonParam(event.detail), eventId],
    );
    return rows.length ? toRow(rows[0]) : null;
  }

  async list(input: SecurityEventFilter): Promise<SecurityEventRow[]> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT ${COLUMNS} FROM admin.security_event
        WHERE ($1::text IS NULL OR kind = $1)
          AND ($2::text IS NULL OR severity = $2)
          AND (NOT $3::boolean OR acked_at IS NULL)
        ORDER BY ts DESC, id DESC
        LIMIT $4`,
      [input.kind ?? null, input.severity ?? null, input.unacked === true, input.limit],
    );
    return rows.map(toRow);
  }

  async find(id: number): Promise<SecurityEventRow | null> {
    const { rows: rows } = await sql(this.manager, `SELECT ${COLUMNS} FROM admin.security_event WHERE id = $1`, [id]);
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** Sets acked_at and acked_by unless already acknowledged; the row as it is afterwards (null: unknown id). */
  async ack(id: number, by: string, at: Date): Promise<{ row: SecurityEventRow; changed: boolean } | null> {
    const rows = (
      await sql(this.manager, `UPDATE admin.security_event SET acked_at = $2, acked_by = $3 WHERE id = $1 AND acked_at IS NULL RETURNING ${COLUMNS}`, [
        id,
        at.toISOString(),
        by,
      ])
    ).rows;
    if (rows[0]) return { row: toRow(rows[0]), changed: true };
    const existing = await this.find(id);
    return existing ? { row: existing, changed: false } : null;
  }

  /**
   * Claims a critical event for mailing (sets notified_at) unless another replica did; the
   * claimer sends, and releases the claim if it could not.
   */
  async claimNotification(id: number, at: Date): Promise<boolean> {
    const updated = (
      await sql(this.manager, `UPDATE admin.security_event SET notified_at = $2 WHERE id = $1 AND notified_at IS NULL RETURNING id`, [id, at.toISOString()])
    ).rows;
    return updated.length > 0;
  }

  async releaseNotification(id: number): Promise<void> {
    await sql(this.manager, `UPDATE admin.security_event SET notified_at = NULL WHERE id = $1`, [id]);
  }

  /** Critical events not mailed yet, since `since`, oldest first. */
  async unnotifiedCritical(since: Date, limit = 100): Promise<SecurityEventRow[]> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT ${COLUMNS} FROM admin.security_event WHERE severity = 'critical' AND notified_at IS NULL AND ts > $1 ORDER BY ts, id LIMIT $2`,
      [since.toISOString(), limit],
    );
    return rows.map(toRow);
  }
}
