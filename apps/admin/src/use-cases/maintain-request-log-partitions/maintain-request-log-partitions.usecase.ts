import { Inject, Injectable } from '@nestjs/common';
import { JsonLogger, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';

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
 * are not touched: they outlive the entries. Idempotent, any replica may run it (the hourly job:
 * stats/request-log-retention.service.ts).
 */
@Injectable()
export class MaintainRequestLogPartitions {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(): Promise<RetentionRun> {
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
