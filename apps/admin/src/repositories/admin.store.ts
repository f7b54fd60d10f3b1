import { Inject, Injectable } from '@nestjs/common';
import { sqlState } from '@app/infra';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditRepository } from './audit.repository.js';
import { BackupRunRepository } from './backup-run.repository.js';
import { DetectorRepository } from './detector.repository.js';
import { HealthDailyRepository } from './health-daily.repository.js';
import { HealthSampleRepository } from './health-sample.repository.js';
import { ProtectionRepository } from './protection.repository.js';
import { RequestLogPartitionRepository } from './request-log-partitions.repository.js';
import { RequestLogBatchNumbers, RequestLogRepository } from './request-log.repository.js';
import { SecurityEventRepository } from './security-event.repository.js';
import { StatsRepository } from './stats.repository.js';
import { UsageCounterRepository } from './usage-counter.repository.js';

export interface AdminRepositories {
  readonly audit: AuditRepository;
  readonly backupRuns: BackupRunRepository;
  readonly detectors: DetectorRepository;
  readonly healthDaily: HealthDailyRepository;
  readonly healthSamples: HealthSampleRepository;
  readonly protection: ProtectionRepository;
  readonly requestLog: RequestLogRepository;
  readonly requestLogPartitions: RequestLogPartitionRepository;
  readonly securityEvents: SecurityEventRepository;
  readonly stats: StatsRepository;
  readonly usageCounters: UsageCounterRepository;
}

export function createRepositories(manager: EntityManager, batchNumbers: RequestLogBatchNumbers): AdminRepositories {
  return {
    audit: new AuditRepository(manager),
    backupRuns: new BackupRunRepository(manager),
    detectors: new DetectorRepository(manager),
    healthDaily: new HealthDailyRepository(manager),
    healthSamples: new HealthSampleRepository(manager),
    protection: new ProtectionRepository(manager),
    requestLog: new RequestLogRepository(manager, batchNumbers),
    requestLogPartitions: new RequestLogPartitionRepository(manager),
    securityEvents: new SecurityEventRepository(manager),
    stats: new StatsRepository(manager),
    usageCounters: new UsageCounterRepository(manager),
  };
}

/** Attempts of a transaction that lost a deadlock or a serialization conflict. */
const TRANSACTION_ATTEMPTS = 3;
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * The admin app's unit of work: repositories bound to the DataSource, or to one transaction.
 * Use cases go through this and never touch the ORM themselves. Inside a transaction every
 * statement must go through its repositories: on the embedded database one session serves the
 * whole process, so a query outside would wait for the transaction.
 */
@Injectable()
export class AdminStore {
  readonly repos: AdminRepositories;
  /** Batch numbers are taken in blocks per process, whichever repository asks. */
  private readonly batchNumbers = new RequestLogBatchNumbers();

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    this.repos = createRepositories(dataSource.manager, this.batchNumbers);
  }

  /** Runs `work` in one transaction, again (up to 3 times in all) when it lost a deadlock or a serialization conflict. */
  async transaction<T>(work: (repos: AdminRepositories) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction((manager) => work(createRepositories(manager, this.batchNumbers)));
      } catch (err) {
        if (attempt >= TRANSACTION_ATTEMPTS || !RETRYABLE.has(sqlState(err) ?? '')) throw err;
      }
    }
  }
}
