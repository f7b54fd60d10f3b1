import { stat } from 'node:fs/promises';
import { extractCode, readOutbox, type OutboxMail } from '@app/testing';

export interface MailFilter {
  /** Only mail written at or after this time (ms since the epoch). Default: the mailbox's creation. */
  readonly since?: number;
  readonly timeoutMs?: number;
}

/**
 * The mail of one runtime: the embedded outbox (`<DATA_DIR>/outbox`) in standalone mode, the
 * SMTP sink's directory in distributed mode; both are read with readOutbox(). A mail handed
 * out by a wait* method is not handed out again by this mailbox; `since` keeps mail of
 * earlier test files (one distributed stack serves all of them) out of the way.
 */
export class Mailbox {
  private readonly consumed = new Set<string>();
  private readonly createdAt = Date.now();

  constructor(readonly dir: string) {}

  /** Every mail so far, oldest first, with the time its file was written. */
  async all(): Promise<(OutboxMail & { writtenAt: number })[]> {
    const mails = await readOutbox(this.dir);
    return Promise.all(mails.map(async (mail) => ({ ...mail, writtenAt: (await stat(mail.file)).mtimeMs })));
  }

  /** Mail addressed to `email` (envelope or To/Cc), written since `since`. */
  async to(email: string, since = this.createdAt): Promise<(OutboxMail & { writtenAt: number })[]> {
    const wanted = email.toLowerCase();
    return (await this.all()).filter((m) => m.writtenAt >= since - 5 && recipients(m).includes(wanted));
  }

  async waitFor(predicate: (mail: OutboxMail) => boolean, filter: MailFilter = {}): Promise<OutboxMail> {
    const since = filter.since ?? this.createdAt;
    const timeoutMs = filter.timeoutMs ?? 15_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mails = await this.all();
      const found = mails.find((m) => !this.consumed.has(m.file) && m.writtenAt >= since - 5 && predicate(m));
      if (found) {
        this.consumed.add(found.file);
        return found;
      }
      if (Date.now() > deadline) {
        const seen = mails.filter((m) => m.writtenAt >= since - 5).map((m) => ({ to: recipients(m), subject: m.subject }));
        throw new Error(`no matching mail in ${this.dir}/outbox within ${timeoutMs} ms; mail since then: ${JSON.stringify(seen)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The 6-digit login code of the next login mail to `email`. */
  async waitForCode(email: string, filter: MailFilter = {}): Promise<string> {
    const wanted = email.toLowerCase();
    const mail = await this.waitFor((m) => recipients(m).includes(wanted) && loginCode(m) !== null, filter);
    return loginCode(mail)!;
  }

  /** The next mail to `email` of any kind (e.g. an invitation). */
  waitForMailTo(email: string, filter: MailFilter = {}): Promise<OutboxMail> {
    const wanted = email.toLowerCase();
    return this.waitFor((m) => recipients(m).includes(wanted), filter);
  }
}

function recipients(mail: OutboxMail): string[] {
  const envelope = (mail.headers['x-envelope-to'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return [...mail.to, ...envelope].map((a) => a.toLowerCase());
}

/** A login mail carries its code in the subject or the text; invitations carry none. */
function loginCode(mail: OutboxMail): string | null {
  return extractCode(mail.subject) ?? (/code/i.test(mail.subject) || /code/i.test(mail.text) ? extractCode(mail.text) : null);
}
