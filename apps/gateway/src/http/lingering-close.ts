import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Lingering close (as nginx does it): after refusing a request whose body is still arriving,
 * the gateway half-closes (its answer, then FIN) and goes on reading and discarding what the
 * client sends, so a client still sending reads the answer instead of a connection reset.
 * It stops when the client has sent everything, after LINGER.totalMs in all, after
 * LINGER.idleMs without data, or past LINGER.maxBytes (docs/api.md "Limits and errors").
 */
export const LINGER = { totalMs: 30_000, idleMs: 5_000, maxBytes: 256 * 1024 * 1024 } as const;

/** Reads and discards from `source` (which counts each chunk it reads) within LINGER's bounds, then destroys the socket. */
function linger(socket: Duplex, onChunk: (count: (bytes: number) => void) => void, onDone: (done: () => void) => void): void {
  let bytes = 0;
  const stop = (): void => {
    clearTimeout(total);
    clearTimeout(idle);
    socket.destroy();
  };
  const total = setTimeout(stop, LINGER.totalMs);
  const idle = setTimeout(stop, LINGER.idleMs);
  total.unref();
  idle.unref();
  onChunk((count) => {
    bytes += count;
    if (bytes > LINGER.maxBytes) stop();
    else idle.refresh();
  });
  onDone(stop);
  socket.once('close', () => {
    clearTimeout(total);
    clearTimeout(idle);
  });
}

/**
 * Answers `req` with `Connection: close` and, once the answer is sent, lingers on its body
 * instead of closing at once: the HTTP parser keeps reading the body into `req`, which is
 * discarded; the socket closes when the body has ended (nothing unread, so no reset) or a
 * bound is reached. Call before the answer is written.
 */
export function closeAfterLingering(req: IncomingMessage, setHeader: (name: string, value: string) => void): void {
  setHeader('Connection', 'close');
  const socket = req.socket as Duplex & { destroySoon?: () => void };
  // Node's server calls destroySoon() once the last answer on the connection is written.
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    if (req.complete || req.destroyed) {
      socket.destroy();
      return;
    }
    linger(
      socket,
      (count) => req.on('data', (chunk: Buffer) => count(chunk.length)),
      (done) => {
        req.once('end', done);
        req.once('close', done);
      },
    );
    req.resume();
  };
}

/**
 * After answering a request the HTTP parser refused (the parser stays in its error state and
 * reads no further): half-close and discard what the client still sends, within LINGER's
 * bounds, until it closes its side.
 */
export function lingerAfterParserError(socket: Duplex & { bytesRead?: number }): void {
  linger(
    socket,
    (count) => {
      let seen = socket.bytesRead ?? 0;
      // The parser, not a 'data' listener, reads a server socket: sample the bytes it has read.
      const poll = setInterval(() => {
        const now = socket.bytesRead ?? 0;
        if (now !== seen) count(now - seen);
        seen = now;
      }, 100);
      poll.unref();
      socket.once('close', () => clearInterval(poll));
    },
    (done) => socket.once('end', done),
  );
}
