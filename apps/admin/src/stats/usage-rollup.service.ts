import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JobQueue, JsonLogger } from '@app/infra';
import { UsageCounterRepository } from './usage-counter.repository.js';

/**
 * The named repeating job of the usage counters' roll-up (JobQueue.schedule: one run per period
 * across replicas). It only catches the tail: while batches arrive, each replica folds after
 * its batches at most once a second (UsageRollup.afterBatch).
 */
export const USAGE_ROLLUP_JOB = { queue: 'usage-rollup', everyMs: 60_000 } as const;
/** Folding after stored batches at most this often: the pending rows the summaries read stay a second's worth. */
const FOLD_EVERY_MS = 1_000;
/** Pending rows (batches) one statement folds. */
const FOLD_ROWS = 200;

/**
 * Folds the pending usage counters (a row per stored batch) into the daily counters
 * (docs/api.md "Usage statistics"), so the summaries read a few rows per day and customer.
 * Idempotent: a run repeated, or two at once, folds each pending row once.
 */
@Injectable()
export class UsageRollup implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('admin');
  private running: Promise<number> | null = null;
  private lastRun = 0;
  private stopped = false;

  constructor(
    @Inject(UsageCounterRepository) private readonly counters: UsageCounterRepository,
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

  /** After a stored batch: a run when none ran in the last second (a failed one is logged; the next batch or the job retries). */
  async afterBatch(): Promise<void> {
    if (this.running || Date.now() - this.lastRun < FOLD_EVERY_MS) return;
    await this.run().catch((err: unknown) => this.logger.write('warn', 'usage counters not rolled up', { error: String(err) }));
  }

  /** Folds every pending row (a run already going in this process is joined); returns the rows folded. */
  run(): Promise<number> {
    this.lastRun = Date.now();
    this.running ??= this.fold().finally(() => (this.running = null));
    return this.running;
  }

  private async fold(): Promise<number> {
    let total = 0;
    let folded: number;
    do {
      folded = await this.counters.foldPending(FOLD_ROWS);
      total += folded;
    } while (folded === FOLD_ROWS && !this.stopped);
    return total;
  }
}
