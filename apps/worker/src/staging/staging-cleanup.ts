import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { MAX_OWNERSHIP_BATCH, ObjectOwnerMessages } from '@app/contracts';
import { JobQueue, JsonLogger, MessageBus, ObjectStore } from '@app/infra';

/** The scheduled job (docs/operations.md "Background jobs"): queue name and period. */
export const STAGING_CLEANUP_JOB = { queue: 'staging-cleanup', everyMs: 3600 * 1000 } as const;
/** Where the gateway stages uploads: `uploads/<date>/<uuid>`. */
export const STAGING_PREFIX = 'uploads/';
/** An upload no row owns this long after it was written is abandoned (a failed or cut-off upload). */
export const STAGING_MAX_AGE_MS = 24 * 3600 * 1000;
/** Every app that keeps stored files under their staging keys. */
const OWNERS = [ObjectOwnerMessages.firmware, ObjectOwnerMessages.logdata];

export interface StagingCleanupResult {
  readonly examined: number;
  readonly removed: number;
}

/**
 * Removes staged upload objects that no row owns a day after they were written. A stored
 * file keeps the staging key it was uploaded under, so an object is removed only when every
 * owning app (firmware builds and notes, log files) has answered that it holds no such key:
 * an app that does not answer fails the run (the job retries), it never counts as "not
 * owned". Idempotent: a run repeated after a crash finds the same or fewer orphans.
 */
@Injectable()
export class StagingCleanup implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('worker');
  private stopped = false;

  constructor(
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(ObjectStore) private readonly objects: ObjectStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async onModuleInit(): Promise<void> {
    this.jobs.process(STAGING_CLEANUP_JOB.queue, async () => {
      if (!this.stopped) await this.run(new Date());
    });
    await this.jobs.schedule(STAGING_CLEANUP_JOB.queue, STAGING_CLEANUP_JOB.queue, STAGING_CLEANUP_JOB.everyMs, STAGING_CLEANUP_JOB.queue, {});
  }

  onModuleDestroy(): void {
    this.stopped = true;
  }

  /** One pass over the staging area: objects written before `now` minus a day, in batches. */
  async run(now: Date): Promise<StagingCleanupResult> {
    const before = now.getTime() - STAGING_MAX_AGE_MS;
    let examined = 0;
    let removed = 0;
    let batch: string[] = [];
    const flush = async () => {
      examined += batch.length;
      removed += await this.removeOrphans(batch);
      batch = [];
    };
    for await (const object of this.objects.list(STAGING_PREFIX)) {
      if (object.lastModified.getTime() >= before) continue;
      batch.push(object.key);
      if (batch.length === MAX_OWNERSHIP_BATCH) await flush();
    }
    if (batch.length) await flush();
    if (removed) this.logger.info('abandoned uploads removed', { examined, removed });
    return { examined, removed };
  }

  private async removeOrphans(keys: readonly string[]): Promise<number> {
    const owned = new Set<string>();
    for (const owner of OWNERS) for (const key of (await this.bus.send(owner, { keys })).owned) owned.add(key);
    let removed = 0;
    for (const key of keys) {
      if (owned.has(key)) continue;
      await this.objects.delete(key);
      removed++;
    }
    return removed;
  }
}
