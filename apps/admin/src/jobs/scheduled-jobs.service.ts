import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JobQueue, JsonLogger } from '@app/infra';
import { HealthSampleRepository } from '../repositories/health-sample.repository.js';
import { Clock } from '../services/clock.js';
import { HISTORY_MAX_DAYS } from '../services/health.service.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * The admin app's scheduled work (docs/operations.md "Background jobs"): queue name, period.
 * Request-log retention schedules itself (stats/request-log-retention.service.ts), as do the
 * security detectors.
 */
export const HEALTH_ROLLUP_JOB = { queue: 'health-rollup', everyMs: 3600 * 1000 } as const;

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
  ) {}

  async onModuleInit(): Promise<void> {
    this.jobs.process(HEALTH_ROLLUP_JOB.queue, async () => {
      if (!this.stopped) await this.rollUpHealth();
    });
    await this.jobs.schedule(HEALTH_ROLLUP_JOB.queue, HEALTH_ROLLUP_JOB.queue, HEALTH_ROLLUP_JOB.everyMs, HEALTH_ROLLUP_JOB.queue, {});
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
}
