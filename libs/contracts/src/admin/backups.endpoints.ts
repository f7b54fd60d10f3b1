import { AdminErrors } from './admin.errors.js';
import { defineEndpoint } from '../endpoints/endpoint.js';
import { BackupMessages } from './backups.messages.js';
import {
  BackupListSchema,
  BackupRunDetailSchema,
  BackupRunIdParams,
  BackupRunQueuedSchema,
  BackupRunSchema,
  BackupsQuery,
  RestoreRequest,
  VerifyBackupRequest,
  VerifyReportRequest,
} from './backups.schemas.js';
import { NoParams } from '../schemas.js';

const READ = { kind: 'principal', tenant: false, admin: 'read', notInSandbox: true } as const;
const FULL = { kind: 'principal', tenant: false, admin: 'full', notInSandbox: true } as const;

/**
 * Backups, verifies and restores (docs/api.md "Backups and restores"). The writes stay allowed
 * in maintenance: a restore runs in maintenance, and an operator may back up before ending it.
 */
export const backupEndpoints = [
  defineEndpoint({
    operationId: 'adminListBackups',
    method: 'GET',
    path: '/admin/backups',
    tag: 'Admin',
    summary: 'Backup, verify and restore runs, newest first, and the backup backend in use',
    auth: READ,
    errorMode: 'json',
    params: NoParams,
    query: BackupsQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'The runs', schema: BackupListSchema } },
    errors: [],
    target: { kind: 'message', message: BackupMessages.list, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminStartBackup',
    method: 'POST',
    path: '/admin/backups',
    tag: 'Admin',
    summary:
      'Queue a backup of every app’s data and every stored file (409 while a backup or restore is queued or running, or when backups are not configured: no BACKUP_PUBLIC_KEY in the distributed runtime or with the off-site backend)',
    auth: FULL,
    errorMode: 'json',
    allowedInMaintenance: true,
    params: NoParams,
    body: { kind: 'none' },
    responses: { 202: { description: 'Queued', schema: BackupRunQueuedSchema } },
    errors: [AdminErrors.backups_not_configured, AdminErrors.backup_run_busy],
    target: { kind: 'message', message: BackupMessages.start, reply: (r) => ({ kind: 'json', status: 202, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminVerifyBackup',
    method: 'POST',
    path: '/admin/backups/verify',
    tag: 'Admin',
    summary:
      'Decrypt an archive (default: the latest) and check every entry against its manifest, as a run of kind verify (with the key sent, or the service’s generated key)',
    auth: FULL,
    errorMode: 'json',
    allowedInMaintenance: true,
    params: NoParams,
    body: { kind: 'json', schema: VerifyBackupRequest, required: true, maxBytes: 16 * 1024 },
    responses: { 202: { description: 'Queued', schema: BackupRunQueuedSchema } },
    errors: [
      AdminErrors.backup_archive_missing,
      AdminErrors.backup_archive_not_found,
      AdminErrors.backup_key_invalid,
      AdminErrors.backup_key_required,
      AdminErrors.backup_key_unreadable,
    ],
    target: { kind: 'message', message: BackupMessages.verify, reply: (r) => ({ kind: 'json', status: 202, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminReportBackupVerify',
    method: 'POST',
    path: '/admin/backups/verify-report',
    tag: 'Admin',
    summary: 'Record the result of a verify done elsewhere (npm run cli -- backup verify --report) as a run of kind verify',
    auth: FULL,
    errorMode: 'json',
    allowedInMaintenance: true,
    params: NoParams,
    body: { kind: 'json', schema: VerifyReportRequest, required: true, maxBytes: 128 * 1024 },
    responses: { 200: { description: 'The recorded run', schema: BackupRunSchema } },
    errors: [],
    target: { kind: 'message', message: BackupMessages.verifyReport, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminGetBackup',
    method: 'GET',
    path: '/admin/backups/{id}',
    tag: 'Admin',
    summary: 'One run with its log',
    auth: READ,
    errorMode: 'json',
    params: BackupRunIdParams,
    body: { kind: 'none' },
    responses: { 200: { description: 'The run', schema: BackupRunDetailSchema } },
    errors: [AdminErrors.backup_run_not_found],
    target: { kind: 'message', message: BackupMessages.get, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'adminStartRestore',
    method: 'POST',
    path: '/admin/restores',
    tag: 'Admin',
    summary: 'Replace all data and files by an archive’s, in maintenance mode (confirm must be exactly `restore <archive_name>`)',
    auth: FULL,
    errorMode: 'json',
    allowedInMaintenance: true,
    params: NoParams,
    body: { kind: 'json', schema: RestoreRequest, required: true, maxBytes: 16 * 1024 },
    responses: { 202: { description: 'Queued', schema: BackupRunQueuedSchema } },
    errors: [
      AdminErrors.restore_confirm_mismatch,
      AdminErrors.backup_archive_not_found,
      AdminErrors.backup_run_busy,
      AdminErrors.backup_key_invalid,
      AdminErrors.backup_key_required,
      AdminErrors.backup_key_unreadable,
    ],
    target: { kind: 'message', message: BackupMessages.restore, reply: (r) => ({ kind: 'json', status: 202, body: r }) },
  }),
];
