import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JobQueue, JsonLogger } from '@app/infra';
import { FoldUsageCounters } from '../use-cases/fold-usage-counters/fold-usage-counters.usecase.js';

/**
 * The named repeating job of the usage counters' roll-up (JobQueue.schedule: one run per period
 * across replicas). It only catches the tail: while batches arrive, each replica starts a fold
 * after its batches at most once a second (UsageRollup.afterBatch).
 */
export const USAGE_ROLLUP_JOB = { queue: 'usage-rollup', everyMs: 60_000 } as const;
/** Folding after stored batches at most this often: the unfolded entries the summaries sum stay a second's worth. */
const FOLD_EVERY_MS = 1_000;

/**
 * When the usage counters are folded (FoldUsageCounters, docs/api.md "Usage statistics"): after
 * stored batches, at most once a second per replica, and by the repeating job; one run at a
 * time in this process.
 */
@Injectable()
export class UsageRollup implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('admin');
  private running: Promise<number> | null = null;
  private lastRun = 0;
  private stopped = false;

  constructor(
    @Inject(FoldUsageCounters) private readonly foldUsageCounters: FoldUsageCounters,
    @Inject(JobQueue) private readonly jobs: JobQueue,
  ) {}

  async onModuleInit(): Promise<void> {
    this.jobs.process(USAGE_ROLLUP_JOB.queue, async () => {
      if (!this.stopped) await this.run();
    });
    await this.jobs.schedule(USAGE_ROLLUP_JOB.queue, USAGE_ROLLUP_JOB.queue, USAGE_ROLLUP_JOB.everyMs, USAGE_ROLLUP_JOB.queue, {});
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  /**
   * After a stored batch: a run started when none ran in the last second, not waited for (the
   * batch is stored and counts at once either way; the fold is not the storing's work). A failed
   * run is logged; the next batch or the job retries.
   */
  afterBatch(): void {
    if (this.running || this.stopped || Date.now() - this.lastRun < FOLD_EVERY_MS) return;
    this.run().catch((err: unknown) => this.logger.write('warn', 'usage counters not rolled up', { error: String(err) }));
  }

  /** Folds every batch stored before the call (after a run already going in this process); returns the batches folded. */
  run(): Promise<number> {
    this.lastRun = Date.now();
    const before = this.running;
    const run: Promise<number> = (before ? before.catch(() => 0).then(() => this.fold()) : this.fold()).finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private fold(): Promise<number> {
    return this.foldUsageCounters.execute(() => this.stopped);
  }
}
