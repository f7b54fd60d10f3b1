import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

/**
 * Requests sent as bytes: node:http with the path given verbatim (no URL parsing, so bad
 * percent-encoding and raw bytes reach the server as they are), one connection each; and a raw
 * TCP exchange for requests that node:http refuses to write (broken framing, control bytes).
 * A request unanswered within its time limit is a hang.
 */

export interface WireRequest {
  readonly method: string;
  /** Path and query, one character per byte (latin1). */
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  readonly localAddress?: string;
}

export interface WireReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly elapsedMs: number;
}

export type Outcome =
  | { readonly kind: 'reply'; readonly reply: WireReply }
  | { readonly kind: 'hang'; readonly elapsedMs: number }
  | { readonly kind: 'broken'; readonly error: string };

export function send(baseUrl: string, request: WireRequest, timeoutMs: number): Promise<Outcome> {
  const base = new URL(baseUrl);
  const started = Date.now();
  return new Promise<Outcome>((resolve) => {
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: request.method,
        path: request.target,
        headers: request.headers,
        agent: false,
        localAddress: request.localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        const done = () =>
          settle({ kind: 'reply', reply: { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), elapsedMs: Date.now() - started } });
        res.on('end', done);
        res.on('error', () => undefined);
        res.on('close', () => (res.complete ? done() : settle({ kind: 'broken', error: `reply cut short after ${Buffer.concat(chunks).length} body bytes` })));
      },
    );
    const timer = setTimeout(() => {
      settle({ kind: 'hang', elapsedMs: Date.now() - started });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => settle({ kind: 'broken', error: `${err.code ?? 'error'}: ${err.message}` }));
    req.end(request.body);
  });
}

/** What came back on a raw connection: the bytes, and whether the server closed it. */
export interface RawExchange {
  readonly bytes: Buffer;
  readonly closed: boolean;
  readonly timedOut: boolean;
}

/**
 * Writes `chunks` on a new TCP connection (half-closing it after them when `endAfter`) and
 * collects what comes back until the server closes the connection, one full answer has
 * arrived, or `timeoutMs` passes.
 */
export function rawExchange(baseUrl: string, chunks: readonly Buffer[], options: { endAfter?: boolean; timeoutMs?: number } = {}): Promise<RawExchange> {
  const base = new URL(baseUrl);
  return new Promise<RawExchange>((resolve) => {
    const received: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: base.hostname, port: Number(base.port), allowHalfOpen: true });
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes: Buffer.concat(received), closed, timedOut });
    };
    const timer = setTimeout(() => finish(false, true), options.timeoutMs ?? 5_000);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      // One complete answer is enough; whether the server then closes is read from its headers.
      if (completeAnswer(Buffer.concat(received))) setTimeout(() => finish(socket.readableEnded, false), 50);
    });
    socket.on('end', () => finish(true, false));
    socket.on('error', () => finish(true, false));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.endAfter) socket.end();
    });
  });
}

function completeAnswer(bytes: Buffer): boolean {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd === -1) return false;
  const head = bytes.subarray(0, headEnd).toString('latin1');
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) return bytes.subarray(headEnd + 4).includes('0\r\n\r\n');
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  return length !== null && bytes.length >= headEnd + 4 + Number(length[1]);
}

/** The data of a chunked body (as far as it is well formed). */
function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export interface ParsedRawReply {
  readonly statusLine: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The first answer in `bytes` (status line, headers in lower case, body as text), or null. */
export function parseRawReply(bytes: Buffer): ParsedRawReply | null {
  const text = bytes.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const [statusLine, ...lines] = text.slice(0, headEnd).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!status) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = bytes.subarray(headEnd + 4);
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  const body = (/chunked/i.test(headers['transfer-encoding'] ?? '') ? dechunk(rest) : rest.subarray(0, length)).toString('utf8');
  return { statusLine, status: Number(status[1]), headers, body };
}
