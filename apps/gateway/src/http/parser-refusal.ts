import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { lingerAfterParserError } from './lingering-close.js';

/** The request-header limit (request line and headers together), answered 431 past it. */
export const MAX_HEADER_BYTES = 16 * 1024;

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

const DETAIL_BY_STATUS: Readonly<Record<number, string>> = {
  431: `request line and headers larger than ${MAX_HEADER_BYTES} bytes`,
  413: 'chunk extensions too large',
  408: 'the request did not arrive in time',
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
): void {
  if (answered.has(socket)) return; // the parser reports every later chunk too
  answered.add(socket);
  // Nothing to answer on a connection the client reset, or after an answer has begun.
  if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const status = STATUS_BY_CODE[err.code ?? ''] ?? 400;
  const title = STATUS_CODES[status] ?? 'Error';
  const requestId = randomUUID();
  const detail = DETAIL_BY_STATUS[status] ?? `the request is not valid HTTP/1.1: ${err.reason ?? err.code ?? 'malformed'}`;
  const body = JSON.stringify({ type: 'about:blank', title, status, detail, instance: '', request_id: requestId });
  // The answer to a HEAD has no body (the request line is at the start of what the parser read, as a rule).
  const head = err.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
  lingerAfterParserError(socket);
}
