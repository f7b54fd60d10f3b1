import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayErrors, type ServiceError } from '@app/contracts';
import { errorTypeUri } from './error-renderer.js';
import { lingerAfterParserError } from './lingering-close.js';

/** The parser's refusals with an answer of their own; any other is `invalid_http`. */
const ERROR_BY_CODE: Readonly<Record<string, () => ServiceError>> = {
  HPE_HEADER_OVERFLOW: GatewayErrors.headers_too_large,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: GatewayErrors.chunk_extensions_too_large,
  ERR_HTTP_REQUEST_TIMEOUT: GatewayErrors.request_timeout,
};

const answered = new WeakSet<Duplex>();

/**
 * A request Node's HTTP parser refused (bad framing, control bytes in the request line,
 * headers too large, too slow): answered, where the socket still allows it, with a status,
 * a problem+json body that says what was wrong, and `Connection: close`; then the
 * connection lingers so that a client still sending reads it (lingering-close.ts).
 */
export function answerParserRefusal(
  err: Error & { code?: string; reason?: string; rawPacket?: Buffer },
  socket: Duplex & { _httpMessage?: { headersSent?: boolean } },
  baseUrl: string,
): void {
  if (answered.has(socket)) return; // the parser reports every later chunk too
  answered.add(socket);
  // Nothing to answer on a connection the client reset, or after an answer has begun.
  if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const error = ERROR_BY_CODE[err.code ?? '']?.() ?? GatewayErrors.invalid_http({ reason: err.reason ?? err.code ?? 'malformed' });
  const status = error.status;
  const title = STATUS_CODES[status] ?? 'Error';
  const requestId = randomUUID();
  const body = JSON.stringify({
    type: errorTypeUri(baseUrl, error.reason),
    title,
    status,
    detail: error.message,
    instance: '',
    request_id: requestId,
    code: error.reason,
  });
  // The answer to a HEAD has no body (the request line is at the start of what the parser read, as a rule).
  const head = err.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
  lingerAfterParserError(socket);
}
