import { ErrorCode } from '../errors.js';
import { defineErrors } from '../errors/define-errors.js';

/** The log data errors (docs/api.md "Log data"), raised by apps/logdata and listed by its endpoints. */
export const LogdataErrors = defineErrors('logdata', {
  log_file_not_found: { category: ErrorCode.NotFound, message: 'log file not found' },
  log_file_conflict: { category: ErrorCode.Conflict, message: 'log file already exists with different content' },
  log_file_too_large: { category: ErrorCode.PayloadTooLarge, message: (p: { maxBytes: number }) => `log file larger than ${p.maxBytes} bytes` },
  log_file_body_missing: { category: ErrorCode.BadRequest, message: 'log file body is required' },
  log_file_size_invalid: { category: ErrorCode.BadRequest, message: 'log file size is invalid' },
  log_file_checksum_invalid: { category: ErrorCode.BadRequest, message: 'log file checksum is invalid' },
  /** The name stayed taken by a row that kept vanishing while the upload was stored. */
  log_file_upload_incomplete: { category: ErrorCode.Unavailable, message: 'log file upload could not be completed, try again' },
});
