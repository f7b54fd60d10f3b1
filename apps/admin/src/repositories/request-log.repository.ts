import { BaseRepository, copyField, CopyLines, copyRows, sql, sqlLiteral } from '@app/infra';
import type { EntityManager } from 'typeorm';
import type { RequestLogRow } from '../dtos/request-log-entry.js';
import { bulkInserts, isBulkEntry, LINE_FIELDS } from './request-log-bulk.js';

/** Where the rows go: admin.request_log, these columns (a bulk line's, then `refusal` and `batch`, the number of the stored batch). */
const REQUEST_LOG = {
  schema: 'admin',
  table: 'request_log',
  columns: [...LINE_FIELDS, 'refusal', 'batch'],
} as const;

/** Batch numbers come from admin.request_log_batch_no this many at a time (its INCREMENT: see migration UsageFromStoredEntries). */
const BATCH_NUMBERS_PER_TAKE = 1000;

/**
 * A batch whose entries lie further apart than this is noted as several time ranges, each of
 * entries less than RANGE_GAP_MS apart: the fold reads a range of the log per note, so a
 * gateway clock that stepped within a batch never makes it read hours of other entries.
 */
const ONE_RANGE_MS = 10 * 60_000;
const RANGE_GAP_MS = 60_000;

/** The time ranges (first and last timestamp, ISO) that hold a batch's entries. */
function rangesOf(rows: readonly RequestLogRow[], first: string, last: string): Array<readonly [string, string]> {
  if (Date.parse(last) - Date.parse(first) <= ONE_RANGE_MS) return [[first, last]];
  const times = rows.map((row) => Date.parse(row.ts)).sort((a, b) => a - b);
  const ranges: Array<readonly [string, string]> = [];
  let start = times[0];
  for (let i = 1; i <= times.length; i++) {
    if (i === times.length || times[i] - times[i - 1] > RANGE_GAP_MS) {
      ranges.push([new Date(start).toISOString(), new Date(times[i - 1]).toISOString()]);
      start = times[i];
    }
  }
  return ranges;
}

/**
 * A stored batch: its entries kept in bulk (isBulkEntry, the statements of bulkInserts), the
 * others in COPY's text format (REQUEST_LOG.columns, each row marked with `batch`), and the
 * statement that notes the batch as not yet counted (admin.usage_unfolded: its number and the
 * time ranges of all its entries, where the fold finds them). One pass over the rows, each line
 * written out: toRequestLogRow made every value safe (timestamps ISO, numbers non-negative
 * integers), so only text goes through copyField.
 */
function storedBatchOf(rows: readonly RequestLogRow[], batch: number): { lines: CopyLines; statements: string[] } {
  let text = '';
  let copied = 0;
  const bulk: RequestLogRow[] = [];
  let first = rows.length ? rows[0].ts : '';
  let last = first;
  for (const row of rows) {
    const ts = row.ts;
    // ISO timestamps in UTC compare as text
    if (ts < first) first = ts;
    else if (ts > last) last = ts;
    if (isBulkEntry(row)) {
      bulk.push(row);
      continue;
    }
    copied++;
    text += `${ts}\t${copyField(row.domain)}\t${copyField(row.actor)}\t${copyField(row.method)}\t${copyField(row.route)}\t${copyField(row.path)}\t${row.status}\t${copyField(row.ip)}\t${copyField(row.user_agent)}\t${row.bytes_in}\t${row.bytes_out}\t${row.duration_ms}\t${copyField(row.request_id)}\t${copyField(row.refusal ?? null)}\t${batch}\n`;
  }
  const notes = rows.length ? rangesOf(rows, first, last).map(([from, to]) => `(${sqlLiteral(batch)}, ${sqlLiteral(from)}, ${sqlLiteral(to)})`) : [];
  const statements = bulkInserts(bulk, batch);
  if (notes.length) statements.push(`INSERT INTO admin.usage_unfolded (batch, first_ts, last_ts) VALUES ${notes.join(', ')}`);
  return { lines: new CopyLines(text, copied), statements };
}

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** The refusal of a batch id stored before (the key of admin.request_log_batch), on either adapter (TypeORM copies the driver's fields). */
function isSeenBatch(err: unknown): boolean {
  const { code, constraint } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  return code === UNIQUE_VIOLATION && constraint === 'request_log_batch_pkey';
}

/** About one batch in this many prunes the seen batch ids (a cheap indexed delete). */
const PRUNE_CHANCE = 1 / 1000;

/**
 * Numbers for stored batches, from blocks of admin.request_log_batch_no this process took (a
 * round trip per BATCH_NUMBERS_PER_TAKE batches). One per process: AdminStore holds it and
 * hands it to every RequestLogRepository it makes.
 */
export class RequestLogBatchNumbers {
  private nextBatch = 0;
  private batchesEnd = 0;
  private taking: Promise<void> | null = null;

  /** A number no other batch has; `manager` takes the next block when this one is used up. */
  async next(manager: EntityManager): Promise<number> {
    while (this.nextBatch >= this.batchesEnd) {
      this.taking ??= sql(manager, `SELECT nextval('admin.request_log_batch_no')::text AS first`)
        .then(({ rows: [{ first }] }) => {
          this.nextBatch = Number(first);
          this.batchesEnd = this.nextBatch + BATCH_NUMBERS_PER_TAKE;
        })
        .finally(() => (this.taking = null));
      await this.taking;
    }
    return this.nextBatch++;
  }
}

/** Every query of admin.request_log. Cross-customer by nature (operator data). */
export class RequestLogRepository extends BaseRepository {
  constructor(
    manager: EntityManager,
    private readonly batchNumbers: RequestLogBatchNumbers,
  ) {
    super(manager);
  }

  private batchNumber(): Promise<number> {
    return this.batchNumbers.next(this.manager);
  }

  /**
   * One COPY per batch whatever its size (no 65535 bind-parameter limit), each row marked with
   * the batch's number, and the batch noted in admin.usage_unfolded in the same transaction: the
   * usage counters are summed from the stored entries afterwards (UsageRollup), so storing a
   * batch costs no counting (docs/performance.md "The request-log ingest"). Every request
   * writes a row: COPY costs PostgreSQL about half the CPU per row of an INSERT (see copyRows).
   */
  async insertBatch(rows: readonly RequestLogRow[]): Promise<void> {
    const { lines, statements } = storedBatchOf(rows, await this.batchNumber());
    await copyRows(this.manager.connection, REQUEST_LOG, lines, { first: statements });
  }

  /**
   * The batch `batchId` once: its id claimed in admin.request_log_batch, noted as not yet
   * counted, and its COPY, in one transaction and one round trip (copyRows' `first`), so a batch seen before is
   * refused by the id's key and skipped as a whole (false). Ids older than a day are pruned now
   * and then (a gateway retries for minutes, not days).
   */
  async insertBatchOnce(batchId: string, rows: readonly RequestLogRow[]): Promise<boolean> {
    const { lines, statements } = storedBatchOf(rows, await this.batchNumber());
    const claim = `INSERT INTO admin.request_log_batch (id) VALUES (${sqlLiteral(batchId)})`;
    let copied = true;
    try {
      await copyRows(this.manager.connection, REQUEST_LOG, lines, { first: [claim, ...statements] });
    } catch (err) {
      if (!isSeenBatch(err)) throw err;
      copied = false;
    }
    if (Math.random() < PRUNE_CHANCE) {
      await sql(this.manager, `DELETE FROM admin.request_log_batch WHERE received_at < now() - interval '1 day'`);
    }
    return copied;
  }
}
