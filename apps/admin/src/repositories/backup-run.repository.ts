import type { BackupRunDetail, BackupRunKind, BackupRunStatus, BackupRunView } from '@app/contracts';
import { BaseRepository, isUniqueViolation, sql, toIso } from '@app/infra';

type Row = Record<string, unknown>;

/** The index that admits one queued or running backup or restore at a time. */
export const ONE_ACTIVE_INDEX = 'backup_run_one_active_idx';
/** A queued or running run whose process has not beaten for this long is abandoned. */
export const ABANDONED_AFTER_MS = 5 * 60 * 1000;
/** Longest log kept per run; older lines give way (the first line stays). */
const MAX_LOG_CHARS = 256 * 1024;

export interface NewBackupRun {
  readonly id: string;
  readonly kind: BackupRunKind;
  readonly status: BackupRunStatus;
  readonly archiveName: string | null;
  readonly initiatedBy: string;
  readonly createdAt: Date;
}

export interface FinishedRun {
  readonly status: 'succeeded' | 'failed';
  readonly objectCount?: number | null;
  readonly totalBytes?: number | null;
  readonly error?: string | null;
  readonly finishedAt: Date;
}

/** Every query of admin.backup_run. */
export class BackupRunRepository extends BaseRepository {
  /** False when it is a backup or restore and another is queued or running (an abandoned one is failed first). */
  async insert(run: NewBackupRun, extra: { startedAt?: Date; finishedAt?: Date; error?: string | null; log?: string } = {}): Promise<boolean> {
    if (run.kind !== 'verify') await this.failAbandoned(new Date(run.createdAt.getTime() - ABANDONED_AFTER_MS), run.createdAt);
    try {
      await sql(
        this.manager,
        `INSERT INTO admin.backup_run (id, kind, status, archive_name, initiated_by, created_at, started_at, finished_at, error, log)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          run.id,
          run.kind,
          run.status,
          run.archiveName,
          run.initiatedBy,
          run.createdAt.toISOString(),
          extra.startedAt?.toISOString() ?? null,
          extra.finishedAt?.toISOString() ?? null,
          extra.error ?? null,
          extra.log ?? '',
        ],
      );
      return true;
    } catch (err) {
      if (isUniqueViolation(err, ONE_ACTIVE_INDEX)) return false;
      throw err;
    }
  }

  /** queued -> running; false when the run is not queued (already taken or finished). */
  async start(id: string, now: Date): Promise<boolean> {
    const rows = (
      await sql(this.manager, `UPDATE admin.backup_run SET status = 'running', started_at = $2 WHERE id = $1 AND status = 'queued' RETURNING id`, [
        id,
        now.toISOString(),
      ])
    ).rows;
    return rows.length === 1;
  }

  /** The process running the run is alive. */
  async heartbeat(id: string, now: Date): Promise<void> {
    await sql(this.manager, `UPDATE admin.backup_run SET heartbeat_at = $2 WHERE id = $1`, [id, now.toISOString()]);
  }

  /** Fails the runs no process has worked on since `before` (created, or last beaten, earlier); returns how many. */
  async failAbandoned(before: Date, now: Date): Promise<number> {
    const rows = (
      await sql(
        this.manager,
        `UPDATE admin.backup_run SET status = 'failed', finished_at = $2,
                error = 'abandoned: the process running it stopped (no sign of life for 5 minutes)'
          WHERE status IN ('queued', 'running') AND COALESCE(heartbeat_at, created_at) < $1 RETURNING id`,
        [before.toISOString(), now.toISOString()],
      )
    ).rows;
    return rows.length;
  }

  /** Appends lines to the run's log (bounded: the oldest lines after the first give way). */
  async appendLog(id: string, lines: string): Promise<void> {
    await sql(
      this.manager,
      `UPDATE admin.backup_run SET log = CASE WHEN length(log) + length($2) > $3 THEN left(log, 200) || '…\n' || right(log || $2, $3 - 300) ELSE log || $2 END
        WHERE id = $1`,
      [id, lines, MAX_LOG_CHARS],
    );
  }

  async finish(id: string, result: FinishedRun): Promise<void> {
    await sql(
      this.manager,
      `UPDATE admin.backup_run SET status = $2, object_count = $3, total_bytes = $4, error = $5, finished_at = $6,
              started_at = COALESCE(started_at, $6)
        WHERE id = $1`,
      [id, result.status, result.objectCount ?? null, result.totalBytes ?? null, result.error ?? null, result.finishedAt.toISOString()],
    );
  }

  /** Newest first. */
  async list(limit: number): Promise<BackupRunView[]> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT id, kind, status, archive_name, object_count, total_bytes, initiated_by, created_at, started_at, finished_at, error
         FROM admin.backup_run ORDER BY created_at DESC, id DESC LIMIT $1`,
      [limit],
    );
    return rows.map(view);
  }

  async get(id: string): Promise<BackupRunDetail | null> {
    const {
      rows: [row],
    } = await sql(this.manager, `SELECT * FROM admin.backup_run WHERE id = $1`, [id]);
    return row ? { ...view(row), log: String(row.log ?? '') } : null;
  }

  /** When the newest backup run (whatever its status) was created; null when there is none. */
  async latestBackupAt(): Promise<Date | null> {
    const {
      rows: [row],
    } = await sql(this.manager, `SELECT max(created_at) AS at FROM admin.backup_run WHERE kind = 'backup'`);
    return row?.at ? new Date(toIso(row.at)) : null;
  }

  /** When the newest successful backup finished; null when none has. */
  async lastSucceededBackupAt(): Promise<Date | null> {
    const { rows } = await sql(this.manager, `SELECT max(finished_at) AS at FROM admin.backup_run WHERE kind = 'backup' AND status = 'succeeded'`);
    return rows[0]?.at ? new Date(toIso(rows[0].at)) : null;
  }
}

function count(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

function view(row: Row): BackupRunView {
  return {
    id: String(row.id),
    kind: row.kind as BackupRunKind,
    status: row.status as BackupRunStatus,
    archive_name: (row.archive_name as string | null) ?? null,
    object_count: count(row.object_count),
    total_bytes: count(row.total_bytes),
    initiated_by: String(row.initiated_by),
    created_at: toIso(row.created_at),
    started_at: row.started_at ? toIso(row.started_at) : null,
    finished_at: row.finished_at ? toIso(row.finished_at) : null,
    error: (row.error as string | null) ?? null,
  };
}
