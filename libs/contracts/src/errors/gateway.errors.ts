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
  host_header_missing: { category: ErrorCode.BadRequest, message: 'a Host header is required' },
  path_encoding_invalid: { category: ErrorCode.BadRequest, message: 'path is not valid percent-encoding' },
  cors_preflight_refused: { category: ErrorCode.Forbidden, message: 'CORS preflight refused: the origin is not allowed to call this path' },
  /** A body of a media type the endpoint does not read; the text names the ones it does. */
  unsupported_media_type: { category: ErrorCode.UnsupportedMediaType, message: (p: { accepted: string }) => `body must be ${p.accepted}` },
  json_body_required: { category: ErrorCode.BadRequest, message: 'a JSON body is required' },
  json_body_invalid: { category: ErrorCode.BadRequest, message: 'body is not valid JSON' },
  content_length_invalid: { category: ErrorCode.BadRequest, message: 'invalid Content-Length' },
  /** An upload (or one part of it) past its limit; `what` is `body`, `upload` or the part's name. */
  upload_too_large: {
    category: ErrorCode.PayloadTooLarge,
    message: (p: { what: string; maxBytes: number }) => `${p.what} larger than the limit of ${p.maxBytes} bytes`,
  },
  multipart_malformed: { category: ErrorCode.BadRequest, message: (p: { reason: string }) => `malformed multipart body: ${p.reason}` },
  multipart_part_repeated: { category: ErrorCode.BadRequest, message: (p: { name: string }) => `multipart part ${p.name} appears more than once` },
  multipart_part_missing: { category: ErrorCode.BadRequest, message: (p: { name: string }) => `multipart part ${p.name} is required` },
  multipart_too_many_parts: { category: ErrorCode.BadRequest, message: 'too many multipart parts' },
  multipart_field_too_large: {
    category: ErrorCode.PayloadTooLarge,
    message: (p: { name: string; maxBytes: number }) =>
      `multipart part ${p.name} sent as a form field is larger than ${p.maxBytes} bytes: send it as a file part (with a filename)`,
  },
  download_link_not_found: { category: ErrorCode.NotFound, message: 'download link not found' },
  download_link_expired: { category: ErrorCode.Gone, message: 'download link expired' },
  /** The linked file is gone from the store. */
  download_file_not_found: { category: ErrorCode.NotFound, message: 'file not found' },
  /** Raised with a Content-Range header naming the file size. */
  range_not_satisfiable: { category: ErrorCode.RangeNotSatisfiable, message: 'range not satisfiable' },
  /** Raised with a `Retry-After` header. */
  downloads_rate_limited: { category: ErrorCode.RateLimited, message: 'too many downloads from this address' },
  console_not_built: { category: ErrorCode.Unavailable, message: 'the console is not built: run npm run build' },
  asset_not_found: { category: ErrorCode.NotFound, message: 'unknown asset' },
  page_file_not_found: { category: ErrorCode.NotFound, message: 'unknown file' },
});
