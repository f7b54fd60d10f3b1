import { type DynamicModule, Module } from '@nestjs/common';
import { type AppDatabaseOptions, BackupStore, createBackupStore, type ServiceConfig } from '@app/infra';
import { appDataController, healthController, InfraModule, SERVICE_CONFIG } from '@app/platform';
import { ADMIN_APP_DATA } from './admin.app-data.js';
import { BackupJobs } from './backups/backup-jobs.service.js';
import { BackupKeys } from './backups/backup-keys.js';
import { AdminController } from './controllers/admin.controller.js';
import { AuditController } from './controllers/audit.controller.js';
import { BackupsController } from './controllers/backups.controller.js';
import { JobsController } from './controllers/jobs.controller.js';
import { ProtectionController } from './controllers/protection.controller.js';
import { StatsController } from './controllers/stats.controller.js';
import { SecurityDetectors } from './detectors/security-detectors.service.js';
import { HealthDailyEntity } from './entities/health-daily.entity.js';
import { HealthSampleEntity } from './entities/health-sample.entity.js';
import { RequestLogEntity } from './entities/request-log.entity.js';
import { ScheduledJobs } from './jobs/scheduled-jobs.service.js';
import { AdminSchema1763700000000 } from './migrations/1763700000000-admin-schema.js';
import { AdminAuditSecurity1763800000000 } from './migrations/1763800000000-admin-audit-security.js';
import { RequestLogBrin1764100000000 } from './migrations/1764100000000-request-log-brin.js';
import { Protection1764300000000 } from './migrations/1764300000000-protection.js';
import { DetectorEpisodes1764350000000 } from './migrations/1764350000000-detector-episodes.js';
import { AdminDeliveryIds1764400000000 } from './migrations/1764400000000-admin-delivery-ids.js';
import { UsageDaily1764500000000 } from './migrations/1764500000000-usage-daily.js';
import { RequestLogPartitions1764600000000 } from './migrations/1764600000000-request-log-partitions.js';
import { HealthDaily1764700000000 } from './migrations/1764700000000-health-daily.js';
import { BackupRuns1764800000000 } from './migrations/1764800000000-backup-runs.js';
import { RequestLogLeanIngest1764850000000 } from './migrations/1764850000000-request-log-lean-ingest.js';
import { UsageFromStoredEntries1764900000000 } from './migrations/1764900000000-usage-from-stored-entries.js';
import { RequestLogBulk1765000000000 } from './migrations/1765000000000-request-log-bulk.js';
import { AuditLogFilters1765060000000 } from './migrations/1765060000000-audit-log-filters.js';
import { ProtectionChanges } from './protection/protection-changes.js';
import { AdminStore } from './repositories/admin.store.js';
import { NotificationRetries } from './security/notification-retries.js';
import { Clock } from './services/clock.js';
import { RequestLogRetention } from './stats/request-log-retention.service.js';
import { UsageRollup } from './stats/usage-rollup.service.js';
import { AcknowledgeSecurityEvent } from './use-cases/acknowledge-security-event/acknowledge-security-event.usecase.js';
import { BlockAddress } from './use-cases/block-address/block-address.usecase.js';
import { DetectSecurityEvents } from './use-cases/detect-security-events/detect-security-events.usecase.js';
import { FoldUsageCounters } from './use-cases/fold-usage-counters/fold-usage-counters.usecase.js';
import { GetBackupRun } from './use-cases/get-backup-run/get-backup-run.usecase.js';
import { GetHealthHistory } from './use-cases/get-health-history/get-health-history.usecase.js';
import { GetMaintenance } from './use-cases/get-maintenance/get-maintenance.usecase.js';
import { GetProtectionState } from './use-cases/get-protection-state/get-protection-state.usecase.js';
import { ListAudit } from './use-cases/list-audit/list-audit.usecase.js';
import { ListBackups } from './use-cases/list-backups/list-backups.usecase.js';
import { ListIpBlocks } from './use-cases/list-ip-blocks/list-ip-blocks.usecase.js';
import { ListJobs } from './use-cases/list-jobs/list-jobs.usecase.js';
import { ListRequestLog } from './use-cases/list-request-log/list-request-log.usecase.js';
import { ListSecurityEvents } from './use-cases/list-security-events/list-security-events.usecase.js';
import { MaintainRequestLogPartitions } from './use-cases/maintain-request-log-partitions/maintain-request-log-partitions.usecase.js';
import { NotifyOperators } from './use-cases/notify-operators/notify-operators.usecase.js';
import { RecordAuditEntry } from './use-cases/record-audit-entry/record-audit-entry.usecase.js';
import { RecordHealthSample } from './use-cases/record-health-sample/record-health-sample.usecase.js';
import { RecordSecurityEvent } from './use-cases/record-security-event/record-security-event.usecase.js';
import { RecordVerifyReport } from './use-cases/record-verify-report/record-verify-report.usecase.js';
import { RestoreBackup } from './use-cases/restore-backup/restore-backup.usecase.js';
import { RetryOperatorNotifications } from './use-cases/retry-operator-notifications/retry-operator-notifications.usecase.js';
import { RollUpHealth } from './use-cases/roll-up-health/roll-up-health.usecase.js';
import { RunBackup } from './use-cases/run-backup/run-backup.usecase.js';
import { SetMaintenance } from './use-cases/set-maintenance/set-maintenance.usecase.js';
import { StartBackup } from './use-cases/start-backup/start-backup.usecase.js';
import { StoreRelayedRecords } from './use-cases/store-relayed-records/store-relayed-records.usecase.js';
import { StoreRequestLog } from './use-cases/store-request-log/store-request-log.usecase.js';
import { SummarizeUsage } from './use-cases/summarize-usage/summarize-usage.usecase.js';
import { UnblockAddress } from './use-cases/unblock-address/unblock-address.usecase.js';
import { VerifyBackup } from './use-cases/verify-backup/verify-backup.usecase.js';

export const ADMIN_DATABASE = {
  schema: 'admin',
  entities: [RequestLogEntity, HealthSampleEntity, HealthDailyEntity],
  migrations: [
    AdminSchema1763700000000,
    AdminAuditSecurity1763800000000,
    RequestLogBrin1764100000000,
    Protection1764300000000,
    DetectorEpisodes1764350000000,
    AdminDeliveryIds1764400000000,
    UsageDaily1764500000000,
    RequestLogPartitions1764600000000,
    HealthDaily1764700000000,
    BackupRuns1764800000000,
    RequestLogLeanIngest1764850000000,
    UsageFromStoredEntries1764900000000,
    RequestLogBulk1765000000000,
    AuditLogFilters1765060000000,
  ],
} satisfies AppDatabaseOptions;

/** The app's own providers (infrastructure comes from InfraModule); tests compose them with test adapters. */
export const ADMIN_PROVIDERS = [
  Clock,
  AdminStore,
  { provide: BackupStore, useFactory: (config: ServiceConfig) => createBackupStore(config), inject: [SERVICE_CONFIG] },
  BackupKeys,
  ProtectionChanges,
  // Use cases: one verb each (use-cases/<verb-noun>/).
  RecordAuditEntry,
  ListAudit,
  RecordSecurityEvent,
  NotifyOperators,
  RetryOperatorNotifications,
  ListSecurityEvents,
  AcknowledgeSecurityEvent,
  StoreRelayedRecords,
  StoreRequestLog,
  FoldUsageCounters,
  MaintainRequestLogPartitions,
  SummarizeUsage,
  ListRequestLog,
  RecordHealthSample,
  GetHealthHistory,
  RollUpHealth,
  GetMaintenance,
  SetMaintenance,
  ListIpBlocks,
  BlockAddress,
  UnblockAddress,
  GetProtectionState,
  DetectSecurityEvents,
  ListJobs,
  ListBackups,
  GetBackupRun,
  RecordVerifyReport,
  StartBackup,
  RunBackup,
  VerifyBackup,
  RestoreBackup,
  // Schedulers: when the use cases above run in the background.
  NotificationRetries,
  SecurityDetectors,
  ScheduledJobs,
  RequestLogRetention,
  UsageRollup,
  BackupJobs,
];
export const ADMIN_CONTROLLERS = [AdminController, AuditController, ProtectionController, JobsController, StatsController, BackupsController];

/** Operations data: request log, health history, audit log and security events (statistics later). */
@Module({})
export class AdminModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: AdminModule,
      imports: [InfraModule.forApp({ app: 'admin', config, database: ADMIN_DATABASE })],
      controllers: [...ADMIN_CONTROLLERS, healthController('admin'), appDataController(ADMIN_APP_DATA)],
      providers: ADMIN_PROVIDERS,
    };
  }
}
