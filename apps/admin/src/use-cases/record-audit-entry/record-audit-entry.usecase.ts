import { Inject, Injectable } from '@nestjs/common';
import { type AuditEntryInput, recordedJson, recordedText } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { type AuditRow } from '../../repositories/audit.repository.js';
import { AdminStore } from '../../repositories/admin.store.js';

const MAX = { domain: 253, actor: 256, action: 128, target_type: 64, target_id: 512 } as const;
const MAX_STATE_BYTES = 64 * 1024;

/** An audit event ready for the table, or null when it is unusable (no time, no action). */
export function toAuditRow(entry: AuditEntryInput): AuditRow | null {
  if (!entry || typeof entry !== 'object') return null;
  const ts = typeof entry.ts === 'string' ? new Date(entry.ts) : new Date(NaN);
  if (Number.isNaN(ts.getTime()) || typeof entry.action !== 'string' || !entry.action) return null;
  return {
    ts: ts.toISOString(),
    domain: entry.domain ? text(entry.domain, MAX.domain) : null,
    actor: text(entry.actor, MAX.actor) || 'unknown',
    action: text(entry.action, MAX.action),
    target_type: text(entry.target_type, MAX.target_type),
    target_id: text(entry.target_id, MAX.target_id),
    before: state(entry.before),
    after: state(entry.after),
  };
}

const text = recordedText;

/** Stored escaped where jsonb cannot hold a character (recordedJson); an oversized state is replaced by a note (the entry itself is kept). */
function state(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return null;
  const storable = recordedJson(value) as Record<string, unknown>;
  const bytes = Buffer.byteLength(JSON.stringify(storable));
  return bytes > MAX_STATE_BYTES ? { truncated: true, bytes } : storable;
}

/**
 * Stores an audit entry: from every app's AdminEvents.audit and relayed records, and for the
 * admin app's own changes (protection, backups, acknowledgements). Read by ListAudit.
 */
@Injectable()
export class RecordAuditEntry {
  private readonly logger = new JsonLogger('admin');

  constructor(@Inject(AdminStore) private readonly adminStore: AdminStore) {}

  /** `eventId`: the producer's id (relayed entries): stored once however often it arrives. True when stored now. */
  async execute(entry: AuditEntryInput, eventId: string | null = null): Promise<boolean> {
    const row = toAuditRow(entry);
    if (!row) {
      this.logger.write('warn', 'ignored malformed audit entry', { entry: entry as unknown as Record<string, unknown> });
      return false;
    }
    return this.adminStore.repos.audit.insert(row, eventId);
  }
}
