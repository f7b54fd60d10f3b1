import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSmtpSink } from '@app/testing';

export interface MaildirSink {
  /** `smtp://127.0.0.1:<port>`: the SMTP_URL of the apps. */
  readonly url: string;
  /** Mails land in `<dir>/outbox/*.eml`, the layout of the embedded outbox: read them with readOutbox(dir). */
  readonly dir: string;
  close(): Promise<void>;
}

/**
 * An SMTP sink for the distributed runtime that also writes every message it accepts as an
 * `.eml` file, named like the outbox mailer's files (`<ISO time>_<seq>_<recipient>.eml`, so a
 * sorted listing is in arrival order) and made visible atomically. Test files run in another
 * module context than jest's globalSetup, so they read mail from the directory, with the same
 * parser as the standalone outbox, instead of from this process's memory.
 */
export async function startMaildirSink(dir: string): Promise<MaildirSink> {
  const outbox = join(dir, 'outbox');
  await mkdir(outbox, { recursive: true });
  let seq = 0;
  const sink = await startSmtpSink({
    async store(raw, recipients) {
      const recipient = (recipients[0] ?? 'unknown')
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '_')
        .slice(0, 64);
      const name = `${new Date().toISOString().replace(/:/g, '-')}_${String(++seq).padStart(6, '0')}_${recipient}.eml`;
      const tmp = join(outbox, `.tmp-${randomBytes(6).toString('hex')}`);
      // The envelope recipients go first as a header the parser reads (To/Cc may be absent).
      await writeFile(tmp, Buffer.concat([Buffer.from(`X-Envelope-To: ${recipients.join(', ')}\r\n`), raw]));
      await rename(tmp, join(outbox, name));
    },
  });
  return { url: sink.url, dir, close: () => sink.close() };
}
