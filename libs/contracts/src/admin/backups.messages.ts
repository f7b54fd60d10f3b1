import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineMessage } from '../messages/message.js';
import type {
  BackupList,
  BackupRunDetail,
  BackupRunIdParams,
  BackupRunQueued,
  BackupRunView,
  BackupsQuery,
  RestoreRequest,
  VerifyBackupRequest,
  VerifyReportRequest,
} from './backups.schemas.js';
import type { NoParams } from '../schemas.js';

/** Backups, verifies and restores: answered by the admin app, which keeps the run records and runs them. */
export const BackupMessages = {
  list: defineMessage<EndpointCall<NoParams, BackupsQuery, undefined>, BackupList>('admin.backups.list'),
  get: defineMessage<EndpointCall<BackupRunIdParams, NoParams, undefined>, BackupRunDetail>('admin.backups.get'),
  start: defineMessage<EndpointCall<NoParams, NoParams, undefined>, BackupRunQueued>('admin.backups.start'),
  verify: defineMessage<EndpointCall<NoParams, NoParams, VerifyBackupRequest>, BackupRunQueued>('admin.backups.verify'),
  verifyReport: defineMessage<EndpointCall<NoParams, NoParams, VerifyReportRequest>, BackupRunView>('admin.backups.verify-report'),
  restore: defineMessage<EndpointCall<NoParams, NoParams, RestoreRequest>, BackupRunQueued>('admin.restores.start'),
} as const;
