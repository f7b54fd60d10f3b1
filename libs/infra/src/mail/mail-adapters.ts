import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import { JsonLogger } from '../logging/logger.js';
import { withSmtpSpan } from '../telemetry/telemetry.js';
import { Mailer, type MailMessage } from './mailer.js';

let nodemailer: Promise<typeof import('nodemailer')> | null = null;
/**
 * nodemailer is loaded by the first SMTP mailer or the outbox's first mail, not with this
 * module: the embedded default that sends no mail never loads it (docs/performance.md
 * "Memory of the embedded default").
 */
function loadNodemailer(): Promise<typeof import('nodemailer')> {
  return (nodemailer ??= import('nodemailer'));
}

/** Stable Message-ID for an idempotency key, so receivers (and people) can spot a repeat. */
function messageIdFor(key: string, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return `<${createHash('sha256').update(key).digest('hex').slice(0, 32)}@${domain}>`;
}

/** What a log line says of a mail: its kind, never its subject or text (they carry login codes and links). */
function kindOf(message: MailMessage): string {
  return message.kind ?? 'mail';
}

function mailOptions(from: string, message: MailMessage) {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html !== undefined ? { html: message.html } : {}),
    ...(message.idempotencyKey ? { messageId: messageIdFor(message.idempotencyKey, from) } : {}),
  };
}

/** Runs sends with the same key one after another (a retry racing its original). */
class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string | undefined, fn: () => Promise<T>): Promise<T> {
    if (!key) return fn();
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const tail = new Promise<void>((resolve) => (release = resolve));
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/**
 * SMTP through nodemailer (`smtp://host:port`, `smtps://user:pass@host:465`). SMTP cannot
 * refuse a duplicate, so idempotency is best effort: keys sent by this process are
 * remembered (bounded) and the Message-ID is derived from the key.
 */
export class SmtpMailer extends Mailer {
  private readonly transport: Promise<Transporter>;
  /** The server, for the send's span (nodemailer's default ports when the URL names none). */
  private readonly server: { readonly host: string; readonly port: number };
  private readonly sentKeys = new Set<string>();
  private readonly lock = new KeyedLock();
  private readonly logger = new JsonLogger('mail');
  private static readonly REMEMBERED_KEYS = 10_000;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    super();
    const url = new URL(smtpUrl);
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL must start with smtp:// or smtps://, got ${url.protocol}`);
    this.server = { host: url.hostname, port: Number(url.port) || (url.protocol === 'smtps:' ? 465 : 587) };
    // Failing within seconds lets the mail job retry instead of hanging for minutes.
    this.transport = loadNodemailer().then((mailer) =>
      mailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }),
    );
  }

  async send(message: MailMessage): Promise<void> {
    const key = message.idempotencyKey;
    await this.lock.run(key, async () => {
      if (key && this.sentKeys.has(key)) {
        this.logger.debug('mail already sent, skipped', { kind: kindOf(message), message_id: messageIdFor(key, this.from) });
        return;
      }
      const transport = await this.transport;
      const info = await withSmtpSpan(this.server, () => transport.sendMail(mailOptions(this.from, message)));
      this.logger.info('mail sent', { kind: kindOf(message), to: message.to, message_id: info.messageId });
      if (key) {
        this.sentKeys.add(key);
        if (this.sentKeys.size > SmtpMailer.REMEMBERED_KEYS) this.sentKeys.delete(this.sentKeys.values().next().value!);
      }
    });
  }

  /** Connects and says EHLO (and authenticates): a readiness probe for scripts. */
  async verify(): Promise<boolean> {
    try {
      return await (await this.transport).verify();
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    (await this.transport).close();
  }
}

/**
 * No SMTP server: each mail becomes an RFC 5322 `.eml` file in `<dataDir>/outbox`, named
 * `<ISO time>_<recipient>_<random>.eml` so that `ls` lists them in order, and one log line
 * names the file. Files appear atomically (temp file + rename). With an idempotency key, a
 * marker under `outbox/.sent/` remembers the file, and a second send with the key is skipped.
 */
export class OutboxMailer extends Mailer {
  readonly dir: string;
  private composer: Promise<Transporter> | null = null;
  private readonly lock = new KeyedLock();
  private readonly logger = new JsonLogger('mail');

  constructor(
    dataDir: string,
    private readonly from: string,
  ) {
    super();
    this.dir = join(dataDir, 'outbox');
  }

  async send(message: MailMessage): Promise<void> {
    const key = message.idempotencyKey;
    await this.lock.run(key, async () => {
      await mkdir(join(this.dir, '.sent'), { recursive: true });
      const marker = key ? join(this.dir, '.sent', createHash('sha256').update(key).digest('hex').slice(0, 40)) : null;
      if (marker) {
        const existing = await readFile(marker, 'utf8').catch(() => null);
        if (existing && (await stat(join(this.dir, existing.trim())).catch(() => null))) {
          this.logger.debug('mail already in outbox, skipped', { file: join(this.dir, existing.trim()) });
          return;
        }
      }
      this.composer ??= loadNodemailer().then((mailer) => mailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }));
      const info = await (await this.composer).sendMail(mailOptions(this.from, message));
      const raw = info.message as Buffer;
      const now = new Date().toISOString().replace(/:/g, '-');
      const recipient =
        message.to
          .toLowerCase()
          .replace(/[^a-z0-9._-]+/g, '_')
          .replace(/^[._]+/, '')
          .slice(0, 64) || 'unknown';
      const name = `${now}_${recipient}_${randomBytes(3).toString('hex')}.eml`;
      const file = join(this.dir, name);
      await writeAtomically(this.dir, file, raw);
      if (marker) await writeAtomically(this.dir, marker, name);
      this.logger.info(`mail written to ${file}`, { file, kind: kindOf(message), to: message.to, message_id: info.messageId });
    });
  }
}

async function writeAtomically(dir: string, file: string, data: Buffer | string): Promise<void> {
  const tmp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
  try {
    await writeFile(tmp, data, { flag: 'wx', flush: true });
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
