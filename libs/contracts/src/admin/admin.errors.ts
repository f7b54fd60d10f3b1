import { ErrorCode, ServiceError } from '../errors.js';
import { defineErrors } from '../errors/define-errors.js';
import { APP_DATA_OBJECT_PREFIX, type AppDataDumpProblem } from '../backup/app-data.messages.js';
import { ownAddressBlockMessage } from './protection.schemas.js';

/**
 * The administration errors (docs/api.md "Administration": backups, protection, audit, stats,
 * health history, security events), raised by apps/admin (and, for an app's data export or
 * import, by libs/platform in every app) and listed by the admin endpoints.
 */
export const AdminErrors = defineErrors('admin', {
  /** No public key to encrypt archives to; the text says what to set. */
  backups_not_configured: {
    category: ErrorCode.Conflict,
    message: 'backups are not configured: set BACKUP_PUBLIC_KEY (on every admin process) to the public key age1... that `npm run cli -- backup keygen` prints',
  },
  backup_key_required: { category: ErrorCode.BadRequest, message: 'backup_key_b64 is required: the service holds only the public key' },
  backup_key_unreadable: {
    category: ErrorCode.Conflict,
    message: (p: { file: string; reason: string }) => `the service's backup key ${p.file} cannot be read (${p.reason}): put it back, or send backup_key_b64`,
  },
  backup_key_invalid: { category: ErrorCode.BadRequest, message: 'backup_key_b64 must be the base64 of an age secret key (AGE-SECRET-KEY-1...)' },
  backup_run_not_found: { category: ErrorCode.NotFound, message: 'backup run not found' },
  backup_run_busy: { category: ErrorCode.Conflict, message: 'a backup or restore is already queued or running' },
  backup_archive_missing: { category: ErrorCode.NotFound, message: 'there is no backup archive to verify' },
  backup_archive_not_found: {
    category: ErrorCode.NotFound,
    message: (p: { archive: string; backend: string }) => `no archive ${p.archive} on the ${p.backend} backend`,
  },
  restore_confirm_mismatch: { category: ErrorCode.BadRequest, message: (p: { archive: string }) => `confirm must be exactly "restore ${p.archive}"` },
  /** A `from`/`to` query bound that is no date. */
  range_bound_invalid: { category: ErrorCode.BadRequest, message: (p: { name: string }) => `${p.name} is not a valid date` },
  range_reversed: { category: ErrorCode.BadRequest, message: 'from must not be after to' },
  range_too_long: { category: ErrorCode.BadRequest, message: (p: { maxDays: number }) => `the range may span at most ${p.maxDays} days` },
  audit_limit_invalid: { category: ErrorCode.BadRequest, message: (p: { max: number }) => `limit must be an integer from 1 to ${p.max}` },
  audit_offset_invalid: { category: ErrorCode.BadRequest, message: (p: { max: number }) => `offset must be an integer from 0 to ${p.max}` },
  audit_cursor_invalid: { category: ErrorCode.BadRequest, message: 'cursor must be the next_cursor of an earlier page' },
  health_days_invalid: { category: ErrorCode.BadRequest, message: (p: { maxDays: number }) => `days must be an integer from 1 to ${p.maxDays}` },
  /** A block's address or network the parser refused; the text says why. */
  ip_network_invalid: { category: ErrorCode.BadRequest, message: (p: { reason: string }) => p.reason },
  /** A block covering the caller's own address, sent without the confirmation. */
  ip_block_own_address: { category: ErrorCode.Conflict, message: (p: { cidr: string; address: string }) => ownAddressBlockMessage(p.cidr, p.address) },
  ip_block_not_found: { category: ErrorCode.NotFound, message: (p: { cidr: string }) => `no IP block for ${p.cidr}` },
  security_event_id_invalid: { category: ErrorCode.BadRequest, message: 'id must be a positive integer' },
  security_event_not_found: { category: ErrorCode.NotFound, message: 'security event not found' },
  /** An app's data export or import asked with a key outside the app-data prefix, or no key at all. */
  app_data_key_outside: { category: ErrorCode.BadRequest, message: `objectKey must be a key under ${APP_DATA_OBJECT_PREFIX}` },
  app_data_key_invalid: { category: ErrorCode.BadRequest, message: 'objectKey is not a valid object key' },
  app_data_run_id_invalid: { category: ErrorCode.BadRequest, message: 'runId must be 1 to 100 of [A-Za-z0-9._-]' },
  app_data_sha256_invalid: { category: ErrorCode.BadRequest, message: 'sha256 must be 64 lowercase hex digits' },
  /** A dump an import refused before changing anything (AppDataDumpRefused). */
  app_data_dump_refused: { category: ErrorCode.Unprocessable, message: (p: { problem: string; detail: string }) => `dump refused (${p.problem}): ${p.detail}` },
});

/**
 * A dump an import refused; nothing was changed. Crosses the bus as the catalog error
 * `app_data_dump_refused`, whose message names the problem (`dump refused (<problem>): ...`).
 */
export class AppDataDumpRefused extends ServiceError {
  constructor(
    readonly problem: AppDataDumpProblem,
    detail: string,
  ) {
    const error = AdminErrors.app_data_dump_refused({ problem, detail });
    super(error.code, error.message, undefined, error.reason);
    this.name = 'AppDataDumpRefused';
  }
}
