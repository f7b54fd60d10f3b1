import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseMail, type ParsedMail } from './mail-parser.js';

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`: use as SMTP_URL. */
  readonly url: string;
  readonly port: number;
  /** Every message received, in order. */
  readonly messages: ParsedMail[];
  /** Resolves with the first message (already received or arriving) that matches. */
  waitFor(predicate: (message: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

/**
 * An SMTP server on 127.0.0.1 and a random port that accepts every message (no TLS, any or no
 * authentication) and keeps them in memory, parsed.
 */
export interface SmtpSinkOptions {
  /** Also hands each raw message to `store` (e.g. to spool it to disk) before accepting it. */
  readonly store?: (raw: Buffer, recipients: readonly string[]) => Promise<void>;
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const waiters = new Set<(message: ParsedMail) => void>();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 1000,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err: Error) => callback(err));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        const message = parseMail(raw, recipients);
        Promise.resolve(options.store?.(raw, recipients)).then(
          () => {
            messages.push(message);
            for (const waiter of [...waiters]) waiter(message);
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  server.on('error', () => undefined); // a client dropping its connection is not a test failure
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitFor(predicate, timeoutMs = 10_000) {
      const already = messages.find(predicate);
      if (already) return Promise.resolve(already);
      return new Promise<ParsedMail>((resolve, reject) => {
        const waiter = (message: ParsedMail): void => {
          if (!predicate(message)) return;
          cleanup();
          resolve(message);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `no matching mail within ${timeoutMs} ms; received ${messages.length}: ${JSON.stringify(messages.map((m) => ({ to: m.to, subject: m.subject })))}`,
            ),
          );
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        waiters.add(waiter);
      });
    },
    close() {
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
