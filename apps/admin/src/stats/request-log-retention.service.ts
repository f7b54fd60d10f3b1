import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JobQueue, JsonLogger, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { Clock } from '../services/clock.js';
import { AdminStore } from '../repositories/admin.store.js';

/** The named repeating job of the request log's partitions and retention (JobQueue.schedule: one run per period across replicas). */
export const RETENTION_QUEUE = 'request-log-retention';
export const RETENTION_JOB = 'partitions';
const RETENTION_PERIOD_MS = 3600_000;
/** Day partitions made ahead of time: entries of today and the next days never land in the default partition. */
const DAYS_AHEAD = 3;
const DAY_MS = 86_400_000;

export interface RetentionRun {
  readonly created: string[];
  readonly dropped: string[];
  readonly trimmed: number;
}

/**
 * The request log's daily partitions (docs/operations.md "Request log"): each run makes the
 * partitions of today and the next DAYS_AHEAD days, drops whole every partition whose
 * entries are all older than REQUEST_LOG_RETENTION_DAYS, and settles the bulk indexes of the
 * days that are over. The usage counters (admin.usage_daily)
 * are not touched: they outlive the entries. Idempotent, any replica may run it.
 */
@Injectable()
export class RequestLogRetention implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('admin');
  private running: Promise<RetentionRun> | null = null;
  private stopped = false;

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.jobs.process(RETENTION_QUEUE, async () => {
      if (!this.stopped) await this.run();
    });
    await this.jobs.schedule(RETENTION_QUEUE, RETENTION_QUEUE, RETENTION_PERIOD_MS, RETENTION_JOB, {});
    // Today's partition at once, not within the hour (until then entries go to the default partition, and move when it is made).
    void this.run().catch((err: unknown) => this.logger.write('warn', 'request-log partitions not made at start', { error: String(err) }));
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  /** One run (a run already going in this process is joined): partitions made, partitions dropped. */
  run(): Promise<RetentionRun> {
    this.running ??= this.maintain().finally(() => (this.running = null));
    return this.running;
  }

  private async maintain(): Promise<RetentionRun> {
    const now = this.clock.now();
    const today = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
    const created: string[] = [];
    for (let d = 0; d <= DAYS_AHEAD; d++) {
      const day = new Date(today.getTime() + d * DAY_MS);
      if (await this.adminStore.transaction((repos) => repos.requestLogPartitions.create(day))) created.push(day.toISOString().slice(0, 10));
    }
    // Kept: the entries of the last REQUEST_LOG_RETENTION_DAYS days (today counted), so a partition goes once it ends before that.
    const cutoff = new Date(today.getTime() - (this.config.requestLogRetentionDays - 1) * DAY_MS);
    const dropped: string[] = [];
    for (const partition of await this.adminStore.repos.requestLogPartitions.list()) {
      if (partition.before !== null && partition.before.getTime() <= cutoff.getTime()) {
        await this.adminStore.transaction((repos) => repos.requestLogPartitions.drop(partition.name));
        dropped.push(partition.name);
      }
    }
    const trimmed = await this.adminStore.repos.requestLogPartitions.trimDefault(cutoff);
    await this.adminStore.repos.requestLogPartitions.settleBulkIndexes(today);
    if (created.length || dropped.length || trimmed) this.logger.write('info', 'request-log partitions maintained', { created, dropped, trimmed });
    return { created, dropped, trimmed };
  }
}
