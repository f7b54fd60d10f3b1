import { ADDRESS_BLOCKED_MESSAGE, DEFAULT_MAINTENANCE_MESSAGE } from '../admin/protection.schemas.js';
import { MAX_OWNERSHIP_BATCH } from '../admin/jobs.messages.js';
import { ErrorCode } from '../errors.js';
import { defineErrors } from './define-errors.js';

const REALM = 'Bearer realm="service"';
const REFRESH_RACE_MESSAGE = 'refresh token already rotated by a concurrent request: use the cookies that request received';

/**
 * The errors every domain shares (docs/api.md "Limits and errors"). Any endpoint may answer
 * them as its shape implies (inputs, credentials, rate, maintenance, an app behind it), so
 * endpoints never list them in `errors`.
 */
export const CommonErrors = defineErrors('common', {
  /** A path parameter, query, body or message payload the contract's schema refuses; the text says why. */
  invalid_request: { category: ErrorCode.BadRequest, message: (p: { detail: string }) => p.detail },
  route_not_found: { category: ErrorCode.NotFound, message: (p: { method: string; path: string }) => `no endpoint ${p.method} ${p.path}` },
  method_not_allowed: { category: ErrorCode.MethodNotAllowed, message: (p: { method: string }) => `${p.method} is not allowed here` },
  unauthenticated: {
    category: ErrorCode.Unauthenticated,
    message: 'authentication required: send Authorization: Bearer <token>',
    headers: { 'WWW-Authenticate': REALM },
  },
  missing_scope: { category: ErrorCode.Forbidden, message: (p: { scope: string }) => `missing scope ${p.scope}` },
  customer_not_found: { category: ErrorCode.NotFound, message: 'customer not found' },
  address_blocked: { category: ErrorCode.Forbidden, message: ADDRESS_BLOCKED_MESSAGE },
  /** Writes refused while maintenance mode is on: the administrator's notice, or the default one. */
  maintenance: { category: ErrorCode.Unavailable, message: (p: { notice: string }) => p.notice || DEFAULT_MAINTENANCE_MESSAGE },
  rate_limited: {
    category: ErrorCode.RateLimited,
    message: (p: { perMinute: number }) => `too many requests from this address (at most ${p.perMinute} per minute)`,
  },
  body_too_large: { category: ErrorCode.PayloadTooLarge, message: (p: { maxBytes: number }) => `body larger than ${p.maxBytes} bytes` },
  internal: { category: ErrorCode.Internal, message: 'internal error' },
  /** An app nobody answers for (TransportError, errors.ts, raises it by code). */
  app_unavailable: { category: ErrorCode.Unavailable, message: (p: { app: string }) => `${p.app} unavailable` },
  /** An app that received the request and did not answer in time (TransportError). */
  app_did_not_answer: { category: ErrorCode.Unavailable, message: (p: { app: string }) => `${p.app} did not answer in time` },
  /** The staging clean-up asked an app about more object keys than one question holds. */
  ownership_batch_too_large: { category: ErrorCode.BadRequest, message: `at most ${MAX_OWNERSHIP_BATCH} keys per question` },
  /** An upload (log file, firmware build) that reached its app without the uploader's identity. */
  uploader_unknown: { category: ErrorCode.BadRequest, message: 'uploader is unknown' },
  // Credential refusals (docs/api.md "API tokens", "Sessions and CSRF"): the gateway answers them
  // for any endpoint with credentials, identity for its own; WWW-Authenticate is added where raised.
  authorization_not_bearer: { category: ErrorCode.Unauthenticated, message: "Authorization header must be 'Bearer <token>'" },
  token_invalid: { category: ErrorCode.Unauthenticated, message: (p: { reason: string }) => `invalid token: ${p.reason}` },
  token_revoked: { category: ErrorCode.Unauthenticated, message: 'token revoked, expired or unknown' },
  token_format_outdated: { category: ErrorCode.Unauthenticated, message: 'token format is no longer supported: create a new token' },
  session_ended: { category: ErrorCode.Unauthenticated, message: 'session expired or ended: log in again' },
  access_cookie_other_customer: { category: ErrorCode.Unauthenticated, message: 'this access cookie is for another customer: renew the session' },
  refresh_invalid: { category: ErrorCode.Unauthenticated, message: 'refresh cookie missing or expired: log in again' },
  refresh_reused: { category: ErrorCode.Unauthenticated, message: 'refresh token already used: the session has been ended; log in again' },
  /** POST /auth/refresh replayed within the operator's refresh grace (409)... */
  refresh_raced: { category: ErrorCode.Conflict, message: REFRESH_RACE_MESSAGE },
  /** ...and the same replay renewing an access cookie on another request: that request is not authenticated (401). */
  renewal_raced: { category: ErrorCode.Unauthenticated, message: REFRESH_RACE_MESSAGE },
  csrf_invalid: { category: ErrorCode.Forbidden, message: 'missing or invalid CSRF token' },
  metrics_unauthenticated: {
    category: ErrorCode.Unauthenticated,
    message: 'metrics need Authorization: Bearer <METRICS_TOKEN> or an administrator credential',
    headers: { 'WWW-Authenticate': REALM },
  },
  not_in_sandbox: { category: ErrorCode.Forbidden, message: 'not available in the sandbox' },
});
