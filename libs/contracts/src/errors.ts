import { catalogedError } from './errors/error-registry.js';

/**
 * The HTTP categories of ServiceError (its status). What an error means is its `reason`, a
 * code of an error catalog (errors/define-errors.ts).
 */
export enum ErrorCode {
  BadRequest = 'bad_request',
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  NotFound = 'not_found',
  MethodNotAllowed = 'method_not_allowed',
  RequestTimeout = 'request_timeout',
  Conflict = 'conflict',
  Gone = 'gone',
  PreconditionFailed = 'precondition_failed',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  RangeNotSatisfiable = 'range_not_satisfiable',
  Unprocessable = 'unprocessable',
  RateLimited = 'rate_limited',
  HeadersTooLarge = 'headers_too_large',
  Internal = 'internal',
  Unavailable = 'unavailable',
  Timeout = 'timeout',
}

export const ERROR_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.BadRequest]: 400,
  [ErrorCode.Unauthenticated]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.MethodNotAllowed]: 405,
  [ErrorCode.RequestTimeout]: 408,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.Gone]: 410,
  [ErrorCode.PreconditionFailed]: 412,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.UnsupportedMediaType]: 415,
  [ErrorCode.RangeNotSatisfiable]: 416,
  [ErrorCode.Unprocessable]: 422,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.HeadersTooLarge]: 431,
  [ErrorCode.Internal]: 500,
  [ErrorCode.Unavailable]: 503,
  [ErrorCode.Timeout]: 504,
};

/**
 * Retry-After of a 503 that names no time of its own (an app unavailable, builds not loaded):
 * clients and devices back off rather than retry at once (docs/api.md "Limits and errors").
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 30;

/** Extra response headers an error may carry (WWW-Authenticate, Retry-After, Allow). */
export type ErrorHeaders = Record<string, string>;

export interface SerializedServiceError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers?: ErrorHeaders;
  readonly reason?: string;
}

/**
 * The one error type every app throws, built by an error catalog's entry
 * (`LogdataErrors.log_file_not_found()`). Each transport translates it once: the gateway
 * into an HTTP response (status from ERROR_STATUS, `reason` as problem+json's `code`), the
 * apps into an RPC error payload.
 */
export class ServiceError extends Error {
  /**
   * The catalog code (`log_file_not_found`); an error not yet raised from a catalog carries its
   * category's value (`not_found`) until every domain has its catalog.
   */
  readonly reason: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers?: ErrorHeaders,
    reason?: string,
  ) {
    super(message);
    this.name = 'ServiceError';
    this.reason = reason ?? code;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toJSON(): SerializedServiceError {
    return { code: this.code, message: this.message, ...(this.headers ? { headers: this.headers } : {}), reason: this.reason };
  }

  static is(value: unknown): value is ServiceError {
    return value instanceof ServiceError;
  }

  /**
   * Rebuilds an error that crossed a transport; anything unrecognised (an unknown category, or
   * a reason no catalog defines for that category) becomes Internal.
   */
  static fromSerialized(value: unknown): ServiceError {
    if (value && typeof value === 'object') {
      const candidate = value as Partial<SerializedServiceError>;
      if (typeof candidate.code === 'string' && Object.values(ErrorCode).includes(candidate.code) && typeof candidate.message === 'string') {
        const reason: string = candidate.reason ?? candidate.code;
        // A catalog code of that category, or the bare category of an error no catalog defines yet.
        if (catalogedError(reason)?.category === candidate.code || reason === (candidate.code as string)) {
          return new ServiceError(candidate.code, candidate.message, candidate.headers, reason);
        }
      }
    }
    // CommonErrors.internal (its catalog imports this file).
    return new ServiceError(ErrorCode.Internal, 'internal error', undefined, 'internal');
  }

  static badRequest(message: string): ServiceError {
    return new ServiceError(ErrorCode.BadRequest, message);
  }
  static notFound(message: string): ServiceError {
    return new ServiceError(ErrorCode.NotFound, message);
  }
  static conflict(message: string): ServiceError {
    return new ServiceError(ErrorCode.Conflict, message);
  }
  static forbidden(message: string): ServiceError {
    return new ServiceError(ErrorCode.Forbidden, message);
  }
  static unavailable(message: string, headers?: ErrorHeaders): ServiceError {
    return new ServiceError(ErrorCode.Unavailable, message, headers);
  }
}

/** Why the message bus could not complete a request: the codes of TransportError. */
export enum TransportErrorCode {
  /** No app serves the message's pattern: nobody received the request, its payload is still the sender's. */
  NoReceiver = 'no_receiver',
  /** The request went out but no answer came in time: the receiver may hold (and own) its payload. */
  NoAnswer = 'no_answer',
}

/**
 * A request the bus could not complete, thrown by the sending side's bus client (503). It
 * crosses no transport as itself: forwarded by an app it arrives as a plain Unavailable
 * ServiceError, so `failure` always describes the sender's own request.
 */
export class TransportError extends ServiceError {
  constructor(
    readonly failure: TransportErrorCode,
    readonly app: string,
  ) {
    super(
      ErrorCode.Unavailable,
      failure === TransportErrorCode.NoReceiver ? `${app} unavailable` : `${app} did not answer in time`,
      undefined,
      // The codes of CommonErrors.app_unavailable and app_did_not_answer (their catalog imports this file).
      failure === TransportErrorCode.NoReceiver ? 'app_unavailable' : 'app_did_not_answer',
    );
    this.name = 'TransportError';
  }

  /** Whether `value` says nobody received the request (the sender still owns what it staged). */
  static notReceived(value: unknown): boolean {
    return value instanceof TransportError && value.failure === TransportErrorCode.NoReceiver;
  }
}
