import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

export interface MaildirSink {
  /** `smtp://127.0.0.1:<port>`: the SMTP_URL of the apps. */
  readonly url: string;
  /** Mails land in `<dir>/outbox/*.eml`, the layout of the embedded outbox: read them with readOutbox(dir). */
  readonly dir: string;
  close(): Promise<void>;
}

/**
 * An SMTP sink for the distributed runtime that writes every message it accepts as an `.eml`
 * file, named like the outbox mailer's files (`<ISO time>_<seq>_<recipient>.eml`, so a sorted
 * listing is in arrival order) and made visible atomically. Test files run in another module
 * context than jest's globalSetup, so they read mail from the directory, with the same parser
 * as the standalone outbox, instead of from this process's memory.
 */
export async function startMaildirSink(dir: string): Promise<MaildirSink> {
  const outbox = join(dir, 'outbox');
  await mkdir(outbox, { recursive: true });
  let seq = 0;
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
        const recipient = (session.envelope.rcptTo[0]?.address ?? 'unknown').toLowerCase().replace(/[^a-z0-9._-]+/g, '_').slice(0, 64);
        const name = `${new Date().toISOString().replace(/:/g, '-')}_${String(++seq).padStart(6, '0')}_${recipient}.eml`;
        const tmp = join(outbox, `.tmp-${randomBytes(6).toString('hex')}`);
        // The envelope recipients go first as headers the parser reads (To/Cc may be absent).
        const envelope = `X-Envelope-To: ${session.envelope.rcptTo.map((r) => r.address).join(', ')}\r\n`;
        writeFile(tmp, Buffer.concat([Buffer.from(envelope), ...chunks]))
          .then(() => rename(tmp, join(outbox, name)))
          .then(() => callback(), (err: Error) => callback(err));
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
    dir,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
