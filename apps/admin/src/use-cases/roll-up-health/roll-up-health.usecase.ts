import { Inject, Injectable } from '@nestjs/common';
import { JsonLogger } from '@app/infra';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';
import { HISTORY_MAX_DAYS } from '../get-health-history/get-health-history.command.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Moves the health samples taken so far into the daily uptime per part (the samples go), then
 * drops the days older than the longest history anyone can ask for (HISTORY_MAX_DAYS, plus
 * one day so that a window reaching back 400 days is always whole). Idempotent: a repeated
 * run finds nothing more to move or drop. Run by the `health-rollup` job (ScheduledJobs).
 */
@Injectable()
export class RollUpHealth {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<{ moved: number; removedDays: number }> {
    const now = this.clock.now();
    const moved = await this.adminStore.repos.healthDaily.rollUp(now);
    const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const oldestKept = new Date(todayStart - HISTORY_MAX_DAYS * DAY_MS).toISOString().slice(0, 10);
    const removedDays = await this.adminStore.repos.healthDaily.deleteBefore(oldestKept);
    if (moved || removedDays) this.logger.debug('health samples rolled up', { moved, removedDays });
    return { moved, removedDays };
  }
}
