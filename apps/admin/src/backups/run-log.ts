import { APP_DATA_OBJECT_PREFIX } from '@app/contracts';
import type { ObjectStore } from '@app/infra';
import type { Clock } from '../services/clock.js';
import type { BackupRunRepository } from '../repositories/backup-run.repository.js';

/**
 * Where runs keep their working objects in the files' object store (the apps' dumps and the
 * lists of files they refer to): outside every prefix a stored file can have, never part of
 * an archive, and removed when the run ends.
 */
export const BACKUP_WORK_PREFIX = APP_DATA_OBJECT_PREFIX;

function runPrefix(runId: string): string {
  return `${BACKUP_WORK_PREFIX}staging/${runId}/`;
}

export function workKey(runId: string, app: string): string {
  return `${runPrefix(runId)}${app}.dump`;
}

/** Where a restore puts a stored file while the archive is still being checked. */
export function stagedFileKey(runId: string, key: string): string {
  return `${runPrefix(runId)}files/${key}`;
}

/** How often a working run shows it is alive (see ABANDONED_AFTER_MS). */
const HEARTBEAT_MS = 30_000;

/**
 * The readable progress of a run: timestamped lines appended to its record as they happen;
 * and, until stop(), a heartbeat that tells the other replicas its process is alive.
 */
export class RunLog {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly runs: BackupRunRepository,
    private readonly runId: string,
    private readonly clock: Clock,
  ) {
    const beat = () => void this.runs.heartbeat(runId, this.clock.now()).catch(() => undefined);
    beat();
    this.timer = setInterval(beat, HEARTBEAT_MS);
    this.timer.unref();
  }

  async line(text: string): Promise<void> {
    await this.runs.appendLog(this.runId, `${this.clock.now().toISOString()} ${text}\n`);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Removes a run's working objects; failures are left to the next run's clean-up (they are under BACKUP_WORK_PREFIX). */
export async function removeWork(objects: ObjectStore, runId: string): Promise<void> {
  for await (const key of objects.listKeys(runPrefix(runId))) await objects.delete(key).catch(() => undefined);
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
