import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { JobQueue, JsonLogger } from '@app/infra';
import { HealthSampleRepository } from '../repositories/health-sample.repository.js';
import { Clock } from '../services/clock.js';
import { HISTORY_MAX_DAYS } from '../services/health.service.js';

const DAY_MS = 24 * 3600 * 1000;

/** The admin app's scheduled work (docs/operations.md "Background jobs"): queue name, period. */
export const HEALTH_ROLLUP_JOB = { queue: 'health-rollup', everyMs: 3600 * 1000 } as const;
export const REQUEST_LOG_RETENTION_JOB = { queue: 'request-log-retention', everyMs: 3600 * 1000 } as const;

/**
 * Request-log retention is the statistics code's (it drops whole day partitions): it provides
 * this token (`{ provide: RequestLogRetention, useExisting: ... }` in ADMIN_PROVIDERS) and the
 * scheduled job calls it. Until it is provided the job runs and does nothing.
 */
export abstract class RequestLogRetention {
  abstract applyRetention(now: Date): Promise<void>;
}

/**
 * Runs the admin app's scheduled work as named, visible jobs: one schedule per job across
 * replicas, idempotent runs (a run repeated after a crash finds less or nothing to do).
 */
@Injectable()
export class ScheduledJobs implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('admin');
  /** The queue outlives the app in one process: runs delivered after shutdown do nothing. */
  private stopped = false;

  constructor(
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(HealthSampleRepository) private readonly healthSamples: HealthSampleRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Optional() @Inject(RequestLogRetention) private readonly retention: RequestLogRetention | null = null,
  ) {}

  async onModuleInit(): Promise<void> {
    this.jobs.process(HEALTH_ROLLUP_JOB.queue, async () => {
      if (!this.stopped) await this.rollUpHealth();
    });
    this.jobs.process(REQUEST_LOG_RETENTION_JOB.queue, async () => {
      if (!this.stopped) await this.applyRequestLogRetention();
    });
    for (const job of [HEALTH_ROLLUP_JOB, REQUEST_LOG_RETENTION_JOB]) await this.jobs.schedule(job.queue, job.queue, job.everyMs, job.queue, {});
  }

  onModuleDestroy(): void {
    this.stopped = true;
  }

  /**
   * The health history is counted per day from the samples; the roll-up keeps the samples to
   * the longest history anyone can ask for (HISTORY_MAX_DAYS), so the table stays bounded.
   */
  async rollUpHealth(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - (HISTORY_MAX_DAYS + 1) * DAY_MS);
    const removed = await this.healthSamples.deleteBefore(before);
    if (removed) this.logger.info('health samples past the history window removed', { removed });
    return removed;
  }

  async applyRequestLogRetention(): Promise<void> {
    await this.retention?.applyRetention(this.clock.now());
  }
}
