import { type DynamicModule, Module } from '@nestjs/common';
import { type AppDatabaseOptions, BackupStore, createBackupStore, type ServiceConfig } from '@app/infra';
import { appDataController, healthController, InfraModule, SERVICE_CONFIG } from '@app/platform';
import { ADMIN_APP_DATA } from './admin.app-data.js';
import { AdminStore } from './repositories/admin.store.js';
import { BackupJobs } from './backups/backup-jobs.service.js';
import { BackupKeys } from './backups/backup-keys.js';
import { BackupRuns } from './backups/backup-runs.service.js';
import { BackupsController } from './controllers/backups.controller.js';
import { BackupRuns1764800000000 } from './migrations/1764800000000-backup-runs.js';
import { RestoreBackup } from './use-cases/restore-backup/restore-backup.usecase.js';
import { RunBackup } from './use-cases/run-backup/run-backup.usecase.js';
import { StartBackup } from './use-cases/start-backup/start-backup.usecase.js';
import { VerifyBackup } from './use-cases/verify-backup/verify-backup.usecase.js';
import { AuditService } from './audit/audit.service.js';
import { ListAudit } from './use-cases/list-audit/list-audit.usecase.js';
import { RelayedRecordsService } from './audit/relayed-records.service.js';
import { AdminController } from './controllers/admin.controller.js';
import { AuditController } from './controllers/audit.controller.js';
import { JobsController } from './controllers/jobs.controller.js';
import { ProtectionController } from './controllers/protection.controller.js';
import { StatsController } from './controllers/stats.controller.js';
import { SecurityDetectors } from './detectors/security-detectors.service.js';
import { AdminJobsService } from './jobs/admin-jobs.service.js';
import { ScheduledJobs } from './jobs/scheduled-jobs.service.js';
import { HealthDailyEntity } from './entities/health-daily.entity.js';
import { HealthSampleEntity } from './entities/health-sample.entity.js';
import { RequestLogEntity } from './entities/request-log.entity.js';
import { AdminSchema1763700000000 } from './migrations/1763700000000-admin-schema.js';
import { AdminAuditSecurity1763800000000 } from './migrations/1763800000000-admin-audit-security.js';
import { RequestLogBrin1764100000000 } from './migrations/1764100000000-request-log-brin.js';
import { Protection1764300000000 } from './migrations/1764300000000-protection.js';
import { ProtectionService } from './protection/protection.service.js';
import { AdminDeliveryIds1764400000000 } from './migrations/1764400000000-admin-delivery-ids.js';
import { DetectorEpisodes1764350000000 } from './migrations/1764350000000-detector-episodes.js';
import { UsageDaily1764500000000 } from './migrations/1764500000000-usage-daily.js';
import { RequestLogPartitions1764600000000 } from './migrations/1764600000000-request-log-partitions.js';
import { HealthDaily1764700000000 } from './migrations/1764700000000-health-daily.js';
import { RequestLogLeanIngest1764850000000 } from './migrations/1764850000000-request-log-lean-ingest.js';
import { UsageFromStoredEntries1764900000000 } from './migrations/1764900000000-usage-from-stored-entries.js';
import { RequestLogBulk1765000000000 } from './migrations/1765000000000-request-log-bulk.js';
import { AuditLogFilters1765060000000 } from './migrations/1765060000000-audit-log-filters.js';
import { Clock } from './services/clock.js';
import { HealthService } from './services/health.service.js';
import { RequestLogService } from './services/request-log.service.js';
import { SecurityEventsService } from './security/security-events.service.js';
import { RequestLogRetention } from './stats/request-log-retention.service.js';
import { StatsService } from './stats/stats.service.js';
import { UsageRollup } from './stats/usage-rollup.service.js';

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
  RequestLogService,
  HealthService,
  AuditService,
  ListAudit,
  SecurityEventsService,
  ProtectionService,
  RelayedRecordsService,
  SecurityDetectors,
  AdminJobsService,
  ScheduledJobs,
  StatsService,
  RequestLogRetention,
  { provide: BackupStore, useFactory: (config: ServiceConfig) => createBackupStore(config), inject: [SERVICE_CONFIG] },
  BackupKeys,
  BackupRuns,
  StartBackup,
  RunBackup,
  VerifyBackup,
  RestoreBackup,
  BackupJobs,
  UsageRollup,
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
