/** Why the client refused an answer, a file or a request; `code` is stable, the message is for people. */
export type DeviceClientErrorCode =
  | 'signature_missing'
  | 'signature_invalid'
  | 'signature_expired'
  | 'signature_key_unknown'
  | 'signature_coverage'
  | 'digest_mismatch'
  | 'answer_invalid'
  | 'http_status'
  | 'download_failed'
  | 'size_mismatch'
  | 'sha256_mismatch'
  | 'report_refused';

export class DeviceClientError extends Error {
  constructor(
    readonly code: DeviceClientErrorCode,
    message: string,
    /** The HTTP status that caused it, when one did. */
    readonly status?: number,
    /** Seconds the service asked to wait (Retry-After), when it did. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DeviceClientError';
  }
}
