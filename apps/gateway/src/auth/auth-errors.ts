import { CommonErrors, ErrorCode, ServiceError } from '@app/contracts';

/** Every authentication failure, its message and its WWW-Authenticate header (docs/api.md "API tokens", "Limits and errors"). */
const REALM = 'Bearer realm="service"';
const INVALID_TOKEN = `${REALM}, error="invalid_token"`;

export const AuthErrors = {
  missing: CommonErrors.unauthenticated,
  notBearer: () => new ServiceError(ErrorCode.Unauthenticated, "Authorization header must be 'Bearer <token>'", { 'WWW-Authenticate': REALM }),
  invalid: (reason: string) => new ServiceError(ErrorCode.Unauthenticated, `invalid token: ${reason}`, { 'WWW-Authenticate': INVALID_TOKEN }),
  revokedOrExpired: () => new ServiceError(ErrorCode.Unauthenticated, 'token revoked, expired or unknown', { 'WWW-Authenticate': INVALID_TOKEN }),
  oldFormat: () =>
    new ServiceError(ErrorCode.Unauthenticated, 'token format is no longer supported: create a new token', { 'WWW-Authenticate': INVALID_TOKEN }),
  sessionEnded: (message = 'session expired or ended: log in again') => new ServiceError(ErrorCode.Unauthenticated, message, { 'WWW-Authenticate': REALM }),
  metrics: () =>
    new ServiceError(ErrorCode.Unauthenticated, 'metrics need Authorization: Bearer <METRICS_TOKEN> or an administrator credential', {
      'WWW-Authenticate': REALM,
    }),
  missingScope: (scope: string) => CommonErrors.missing_scope({ scope }),
  csrf: () => new ServiceError(ErrorCode.Forbidden, 'missing or invalid CSRF token'),
  customerNotFound: () => CommonErrors.customer_not_found(),
  sandbox: () => new ServiceError(ErrorCode.Forbidden, 'not available in the sandbox'),
} as const;
