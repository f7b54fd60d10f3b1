import { Inject, Injectable } from '@nestjs/common';
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

  /** Newest first; `domain` narrows to one customer. */
  async list(input: { domain?: string; limit: number }): Promise<AuditRow[]> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT ts, domain, actor, action, target_type, target_id, before, after
         FROM admin.audit_log
        WHERE ($1::text IS NULL OR domain = $1)
        ORDER BY ts DESC, id DESC
        LIMIT $2`,
      [input.domain ?? null, input.limit],
    );
    return rows.map((r) => ({
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
