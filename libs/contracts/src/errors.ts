/**
 * The one error type every app throws. Each transport translates it once: the gateway
 * into an HTTP response (status from ERROR_STATUS), the apps into an RPC error payload.
 */
export enum ErrorCode {
  BadRequest = 'bad_request',
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  NotFound = 'not_found',
  MethodNotAllowed = 'method_not_allowed',
  Conflict = 'conflict',
  Gone = 'gone',
  PreconditionFailed = 'precondition_failed',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  RangeNotSatisfiable = 'range_not_satisfiable',
  Unprocessable = 'unprocessable',
  RateLimited = 'rate_limited',
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
  [ErrorCode.Conflict]: 409,
  [ErrorCode.Gone]: 410,
  [ErrorCode.PreconditionFailed]: 412,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.UnsupportedMediaType]: 415,
  [ErrorCode.RangeNotSatisfiable]: 416,
  [ErrorCode.Unprocessable]: 422,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.Internal]: 500,
  [ErrorCode.Unavailable]: 503,
  [ErrorCode.Timeout]: 504,
};

/** Extra response headers an error may carry (WWW-Authenticate, Retry-After, Allow). */
export type ErrorHeaders = Record<string, string>;

export interface SerializedServiceError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers?: ErrorHeaders;
}

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers?: ErrorHeaders,
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toJSON(): SerializedServiceError {
    return { code: this.code, message: this.message, ...(this.headers ? { headers: this.headers } : {}) };
  }

  static is(value: unknown): value is ServiceError {
    return value instanceof ServiceError;
  }

  /** Rebuilds an error that crossed a transport; anything unrecognised becomes Internal. */
  static fromSerialized(value: unknown): ServiceError {
    if (value && typeof value === 'object') {
      const candidate = value as Partial<SerializedServiceError>;
      if (typeof candidate.code === 'string' && Object.values(ErrorCode).includes(candidate.code) && typeof candidate.message === 'string') {
        return new ServiceError(candidate.code, candidate.message, candidate.headers);
      }
    }
    return new ServiceError(ErrorCode.Internal, 'internal error');
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
 * ServiceError, so `reason` always describes the sender's own request.
 */
export class TransportError extends ServiceError {
  constructor(
    readonly reason: TransportErrorCode,
    readonly app: string,
  ) {
    super(ErrorCode.Unavailable, reason === TransportErrorCode.NoReceiver ? `${app} unavailable` : `${app} did not answer in time`);
    this.name = 'TransportError';
  }

  /** Whether `value` says nobody received the request (the sender still owns what it staged). */
  static notReceived(value: unknown): boolean {
    return value instanceof TransportError && value.reason === TransportErrorCode.NoReceiver;
  }
}
