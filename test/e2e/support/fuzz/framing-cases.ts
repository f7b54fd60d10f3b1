import { errorFormatViolations } from './error-format.js';
import { parseRawReply, type RawExchange } from './raw-http.js';

/**
 * Requests whose HTTP framing is broken, written byte by byte on a raw connection (node:http
 * would refuse to send them). Whatever the flaw, the answer must be a status line, an
 * application/problem+json body in the contract's format, and `Connection: close` (the
 * connection cannot be trusted for another request).
 */

export interface FramingCase {
  readonly label: string;
  readonly chunks: readonly Buffer[];
  /** Half-close the connection after writing (a body that never comes). */
  readonly endAfter?: boolean;
}

const b = (text: string): Buffer => Buffer.from(text, 'latin1');
const LOGIN_BODY = '{"email":"fuzz@example.test"}';

export const FRAMING_CASES: readonly FramingCase[] = [
  {
    label: 'Content-Length larger than the body, then end of input',
    chunks: [b(`POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n${LOGIN_BODY}`)],
    endAfter: true,
  },
  {
    label: 'Content-Length not a number',
    chunks: [b(`POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n${LOGIN_BODY}`)],
  },
  {
    label: 'two different Content-Length headers',
    chunks: [b(`POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 29\r\nContent-Length: 30\r\n\r\n${LOGIN_BODY} `)],
  },
  {
    label: 'Content-Length and Transfer-Encoding: chunked together',
    chunks: [
      b(
        `POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 29\r\nTransfer-Encoding: chunked\r\n\r\n1d\r\n${LOGIN_BODY}\r\n0\r\n\r\n`,
      ),
    ],
  },
  {
    label: 'Transfer-Encoding: bogus',
    chunks: [b(`POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: bogus\r\n\r\n${LOGIN_BODY}`)],
  },
  {
    label: 'bad chunk size',
    chunks: [b(`POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${LOGIN_BODY}\r\n0\r\n\r\n`)],
  },
  { label: 'control byte (0x01) in the URL', chunks: [b('GET /devices\u0001x HTTP/1.1\r\nHost: x\r\n\r\n')] },
  { label: 'NUL byte in the URL', chunks: [b('GET /status\u0000 HTTP/1.1\r\nHost: x\r\n\r\n')] },
  {
    label: '100 KB of headers',
    chunks: [b(`GET /status HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 1000 }, (_, i) => `X-Pad-${i}: ${'p'.repeat(90)}\r\n`).join('')}\r\n`)],
  },
  { label: 'header name with a space', chunks: [b('GET /status HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n')] },
  { label: 'not HTTP at all', chunks: [b('\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003 garbage\r\n\r\n')] },
];

/** What is wrong with the answer to a framing case (empty: nothing). */
export function framingViolations(exchange: RawExchange): string[] {
  const reply = parseRawReply(exchange.bytes);
  if (!reply) {
    const got = exchange.bytes.length ? JSON.stringify(exchange.bytes.toString('latin1').slice(0, 300)) : 'nothing';
    return [`no HTTP answer (${exchange.timedOut ? 'timed out' : 'connection closed'}; got ${got})`];
  }
  const problems: string[] = [];
  if (reply.status < 400 || reply.status >= 500) problems.push(`status line ${JSON.stringify(reply.statusLine)} is not a 4xx`);
  const format = errorFormatViolations(
    {
      status: reply.status,
      contentType: reply.headers['content-type'] ?? null,
      requestId: reply.headers['x-request-id'] ?? null,
      body: Buffer.from(reply.body),
      head: false,
    },
    'problem',
  );
  problems.push(...format.map((v) => `${v.kind}: ${v.detail}`));
  if ((reply.headers.connection ?? '').toLowerCase() !== 'close') problems.push(`Connection: ${reply.headers.connection ?? '(absent)'}, not close`);
  if (problems.length > 0) problems.push(`the answer: ${JSON.stringify(exchange.bytes.toString('latin1').slice(0, 400))}`);
  return problems;
}
