import { Inject, Injectable } from '@nestjs/common';
import { AdminStore } from '../../repositories/admin.store.js';

/** Rows of usage_unfolded (nearly always one per batch) one statement folds. */
const FOLD_BATCHES = 200;

/**
 * Sums the stored request-log batches not yet counted (admin.usage_unfolded) into the daily
 * counters (docs/api.md "Usage statistics"), so the summaries read a few rows per day and
 * customer. Idempotent: a run repeated, or two at once, folds each batch once. Run by
 * UsageRollup (after stored batches, and its repeating job).
 */
@Injectable()
export class FoldUsageCounters {
  constructor(@Inject(AdminStore) private readonly adminStore: AdminStore) {}

  /** Folds every batch stored before the call, in statements of FOLD_BATCHES, until `stopped` says so; returns the batches folded. */
  async execute(stopped: () => boolean = () => false): Promise<number> {
    let total = 0;
    let folded: number;
    do {
      folded = await this.adminStore.repos.usageCounters.foldBatches(FOLD_BATCHES);
      total += folded;
    } while (folded === FOLD_BATCHES && !stopped());
    return total;
  }
}
