import { ErrorCode } from '../errors.js';
import { defineErrors } from './define-errors.js';

/** Request line and headers together at most (431 past it). */
export const MAX_REQUEST_HEADER_BYTES = 16 * 1024;

/**
 * The gateway's own errors, before any endpoint is known (docs/api.md "Limits and errors"):
 * any request may be answered with them.
 */
export const GatewayErrors = defineErrors('gateway', {
  /** A request Node's HTTP parser refused; the text names the parser's reason. */
  invalid_http: { category: ErrorCode.BadRequest, message: (p: { reason: string }) => `the request is not valid HTTP/1.1: ${p.reason}` },
  headers_too_large: { category: ErrorCode.HeadersTooLarge, message: `request line and headers larger than ${MAX_REQUEST_HEADER_BYTES} bytes` },
  chunk_extensions_too_large: { category: ErrorCode.PayloadTooLarge, message: 'chunk extensions too large' },
  request_timeout: { category: ErrorCode.RequestTimeout, message: 'the request did not arrive in time' },
});
