import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { AuditEntryInput, RelayedRecord, SecurityEventInput } from '@app/contracts';
import { assertSchemaName, BaseRepository, quoteIdent, sql } from '@app/infra';
import type { EntityManager } from 'typeorm';

/** How long a relay owns the rows it claimed: past it (the relay died mid-send) another relay takes them again. */
export const OUTBOX_CLAIM_SECONDS = 30;

/**
 * Rows are written, the relay of this process is woken (OutboxRelay listens): entries reach
 * the admin app within milliseconds instead of at the next poll. Keyed by schema.
 */
export const outboxWritten = new EventEmitter();
outboxWritten.setMaxListeners(0);

/** A claimed row: what the relay sends (`payload` parsed back) and how often it was tried. */
export interface ClaimedRecord {
  readonly record: RelayedRecord;
  readonly attempts: number;
}

export interface OutboxBacklog {
  readonly pending: number;
  /** Age of the oldest pending row in seconds, 0 when there is none. */
  readonly oldestSeconds: number;
}

/**
 * Every query of an app's `<schema>.outbox` (table made by outboxTableSql): audit entries and
 * security events waiting for the admin app. Bound to an EntityManager like the app's other
 * repositories, so `add` inside `store.transaction(repos => ...)` commits or rolls back with
 * the change it records. Each row gets its UUID here, at the source; the admin app stores each
 * id once. Payloads are kept as JSON text (not jsonb, which refuses `\u0000`): the admin app
 * sanitises them as it always did.
 */
export class OutboxRepository extends BaseRepository {
  private readonly table: string;

  constructor(
    manager: EntityManager,
    private readonly schema: string,
  ) {
    super(manager);
    this.table = `${quoteIdent(assertSchemaName(schema))}.outbox`;
  }

  async audit(entry: AuditEntryInput): Promise<string> {
    return this.add('audit', entry);
  }

  async securityEvent(event: SecurityEventInput): Promise<string> {
    return this.add('security_event', event);
  }

  private async add(kind: RelayedRecord['kind'], payload: AuditEntryInput | SecurityEventInput): Promise<string> {
    const id = randomUUID();
    await sql(this.manager, `INSERT INTO ${this.table} (id, kind, payload) VALUES ($1, $2, $3)`, [id, kind, JSON.stringify(payload)]);
    outboxWritten.emit(this.schema);
    return id;
  }

  /**
   * Claims up to `limit` rows nobody holds, oldest first, for OUTBOX_CLAIM_SECONDS: one
   * statement (so it holds no transaction open while the rows travel, which the embedded
   * database's single session needs), SKIP LOCKED so replicas claim disjoint rows.
   */
  async claim(limit: number): Promise<ClaimedRecord[]> {
    const { rows } = await sql(
      this.manager,
      `WITH claimed AS (
         UPDATE ${this.table} SET claimed_until = now() + make_interval(secs => $2), attempts = attempts + 1
          WHERE seq IN (SELECT seq FROM ${this.table} WHERE claimed_until <= now() ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING seq, id, kind, payload, attempts)
       SELECT id, kind, payload, attempts FROM claimed ORDER BY seq`,
      [limit, OUTBOX_CLAIM_SECONDS],
    );
    return rows.map((r) => ({
      record: { id: String(r.id), kind: r.kind as RelayedRecord['kind'], payload: JSON.parse(String(r.payload)) as RelayedRecord['payload'] } as RelayedRecord,
      attempts: Number(r.attempts),
    }));
  }

  /** The admin app has them: gone. */
  async acknowledge(ids: readonly string[]): Promise<void> {
    if (ids.length) await sql(this.manager, `DELETE FROM ${this.table} WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /** Not delivered: free to claim again once `retryInMs` has passed. */
  async release(ids: readonly string[], retryInMs: number): Promise<void> {
    if (ids.length) {
      await sql(this.manager, `UPDATE ${this.table} SET claimed_until = now() + make_interval(secs => $2) WHERE id = ANY($1::uuid[])`, [ids, retryInMs / 1000]);
    }
  }

  async backlog(): Promise<OutboxBacklog> {
    const { rows } = await sql(this.manager, `SELECT count(*) AS pending, extract(epoch FROM now() - min(created_at)) AS oldest FROM ${this.table}`);
    return { pending: Number(rows[0]?.pending ?? 0), oldestSeconds: Math.max(0, Math.round(Number(rows[0]?.oldest ?? 0))) };
  }
}

/**
 * The outbox table of one app's schema, for its hand-written migration (up, then down). `seq`
 * orders the relay's sending; `claimed_until` is the lease of the relay that has a row in
 * flight (-infinity: free).
 */
export function outboxTableSql(schema: string): { up: string[]; down: string[] } {
  const s = quoteIdent(assertSchemaName(schema));
  return {
    up: [
      `CREATE TABLE ${s}.outbox (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id uuid NOT NULL,
        kind text NOT NULL,
        payload text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        attempts integer NOT NULL DEFAULT 0,
        claimed_until timestamptz(3) NOT NULL DEFAULT '-infinity',
        CONSTRAINT outbox_pkey PRIMARY KEY (seq),
        CONSTRAINT outbox_id_key UNIQUE (id),
        CONSTRAINT outbox_kind_check CHECK (kind IN ('audit', 'security_event'))
      )`,
      `CREATE INDEX outbox_claimable_idx ON ${s}.outbox (claimed_until, seq)`,
      `COMMENT ON TABLE ${s}.outbox IS 'audit entries and security events not yet acknowledged by the admin app (relayed by OutboxRelay)'`,
    ],
    down: [`DROP TABLE ${s}.outbox`],
  };
}
