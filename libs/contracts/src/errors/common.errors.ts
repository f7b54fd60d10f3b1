import { ADDRESS_BLOCKED_MESSAGE, DEFAULT_MAINTENANCE_MESSAGE } from '../admin/protection.schemas.js';
import { MAX_OWNERSHIP_BATCH } from '../admin/jobs.messages.js';
import { ErrorCode } from '../errors.js';
import { defineErrors } from './define-errors.js';

const REALM = 'Bearer realm="service"';

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
});
