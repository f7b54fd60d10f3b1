import { CommonErrors, type CustomerId, type CustomerRef, LOGDATA_MAX_BYTES, LOGDATA_SANDBOX_MAX_BYTES, LogdataErrors, type StagedFile } from '@app/contracts';
import { stagedFileFault } from '@app/platform';
import { normalizeLogFileName } from '../shared/log-file-name.js';

export const DEFAULT_LOG_CONTENT_TYPE = 'application/octet-stream';

const STAGED_FILE_FAULTS = {
  missing: LogdataErrors.log_file_body_missing,
  size: LogdataErrors.log_file_size_invalid,
  checksum: LogdataErrors.log_file_checksum_invalid,
} as const;

export interface UploadLogFileInput {
  readonly customer: CustomerRef;
  readonly name: unknown;
  readonly actor: string;
  readonly file: StagedFile | undefined;
  /** Content-Type of the request; the staged file's own content type wins when set. */
  readonly contentType?: string;
}

/** A log-file upload, validated when built: an instance is always a well-formed request. */
export class UploadLogFileCommand {
  private constructor(
    readonly customerId: CustomerId,
    /** Lower-case. */
    readonly name: string,
    readonly uploadedBy: string,
    /** The staged body; sha256 lower-case. */
    readonly staged: StagedFile,
    readonly contentType: string,
  ) {}

  /** Throws ServiceError (400, 413) for a request that cannot be stored. */
  static create(input: UploadLogFileInput): UploadLogFileCommand {
    const name = normalizeLogFileName(input.name);
    const file = input.file;
    const fault = stagedFileFault(file);
    if (fault || !file) throw STAGED_FILE_FAULTS[fault ?? 'missing']();
    const maxBytes = input.customer.isSandbox ? LOGDATA_SANDBOX_MAX_BYTES : LOGDATA_MAX_BYTES;
    if (file.sizeBytes > maxBytes) throw LogdataErrors.log_file_too_large({ maxBytes });
    if (!input.actor) throw CommonErrors.uploader_unknown();
    const contentType = (file.contentType || input.contentType || '').trim() || DEFAULT_LOG_CONTENT_TYPE;
    const staged: StagedFile = { ...file, sha256: file.sha256.toLowerCase(), contentType };
    return new UploadLogFileCommand(input.customer.id, name, input.actor, staged, contentType);
  }
}
