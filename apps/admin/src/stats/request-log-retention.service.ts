import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JobQueue, JsonLogger } from '@app/infra';
import { MaintainRequestLogPartitions, type RetentionRun } from '../use-cases/maintain-request-log-partitions/maintain-request-log-partitions.usecase.js';

/** The named repeating job of the request log's partitions and retention (JobQueue.schedule: one run per period across replicas). */
export const RETENTION_QUEUE = 'request-log-retention';
export const RETENTION_JOB = 'partitions';
const RETENTION_PERIOD_MS = 3600_000;

/**
 * The request log's partitions and retention as an hourly job, and once at start (each run is
 * MaintainRequestLogPartitions; a run already going in this process is joined).
 */
@Injectable()
export class RequestLogRetention implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('admin');
  private running: Promise<RetentionRun> | null = null;
  private stopped = false;

  constructor(
    @Inject(MaintainRequestLogPartitions) private readonly maintain: MaintainRequestLogPartitions,
    @Inject(JobQueue) private readonly jobs: JobQueue,
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
    this.running ??= this.maintain.execute().finally(() => (this.running = null));
    return this.running;
  }
}
