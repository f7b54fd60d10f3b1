import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseMail, type ParsedMail } from './mail-parser.js';

export interface OutboxMail extends ParsedMail {
  /** Absolute path of the `.eml` file. */
  readonly file: string;
}

/** The mails the outbox mailer wrote under `<dataDir>/outbox`, oldest first (by file name). */
export async function readOutbox(dataDir: string): Promise<OutboxMail[]> {
  const dir = join(dataDir, 'outbox');
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files = names.filter((n) => n.endsWith('.eml') && !n.startsWith('.')).sort();
  const mails: OutboxMail[] = [];
  for (const name of files) {
    const file = join(dir, name);
    mails.push({ ...parseMail(await readFile(file)), file });
  }
  return mails;
}

/** Polls the outbox until a mail matches (mail is often sent by a background job). */
export async function waitForOutbox(dataDir: string, predicate: (mail: OutboxMail) => boolean, timeoutMs = 10_000): Promise<OutboxMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = await readOutbox(dataDir);
    const found = mails.find(predicate);
    if (found) return found;
    if (Date.now() >= deadline) {
      throw new Error(
        `no matching mail in ${join(dataDir, 'outbox')} within ${timeoutMs} ms; found ${mails.length}: ${JSON.stringify(mails.map((m) => ({ to: m.to, subject: m.subject })))}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
