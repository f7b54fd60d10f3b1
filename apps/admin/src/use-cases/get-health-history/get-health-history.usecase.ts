import { Inject, Injectable } from '@nestjs/common';
import type { HealthHistory } from '@app/contracts';
import { historyDays, toHealthHistory } from '../../dtos/health-history.js';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';
import type { GetHealthHistoryCommand } from './get-health-history.command.js';

/**
 * GET /health/history: the last `days` UTC days (today included), newest first, every day
 * listed, from the daily roll-up (docs/api.md "Health history and the health page").
 */
@Injectable()
export class GetHealthHistory {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: GetHealthHistoryCommand): Promise<HealthHistory> {
    const now = this.clock.now();
    const window = historyDays(command.days, now);
    return toHealthHistory(await this.adminStore.repos.healthDaily.between(window[window.length - 1], window[0]), command.days, now);
  }
}
