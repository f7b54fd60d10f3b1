import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configureLogging, createMailer, loadConfig, type LogLevel, OutboxMailer, SmtpMailer } from '@app/infra';
import { extractCode, parseMail, readOutbox, startSmtpSink, waitForOutbox, type SmtpSink } from '@app/testing';

const FROM = 'no-reply@fds.example';
/** The level the run asked for, restored after a test captured the log lines. */
const LOG_LEVEL = (process.env.LOG_LEVEL as LogLevel | undefined) ?? 'info';
const LONG_LINE = 'Grüße aus Köln – this line is long enough that quoted-printable must wrap it somewhere past seventy-six characters. ';

function loginMail(to: string, code: string, extra: { idempotencyKey?: string; html?: boolean } = {}) {
  return {
    to,
    subject: 'Ihr Anmeldecode für FDS – ✓',
    text: `Hello,\n\n${LONG_LINE}\nYour login code is ${code}. It expires in 10 minutes.\n\nFDS`,
    ...(extra.html ? { html: `<p>Your login code is <b>${code}</b></p>` } : {}),
    ...(extra.idempotencyKey ? { idempotencyKey: extra.idempotencyKey } : {}),
  };
}

/** A login mail as identity renders it: the code in the subject, the code and a link in the text. */
function secretMail(to: string, code: string, idempotencyKey?: string) {
  return {
    kind: 'login',
    to,
    subject: `Your login code: ${code}`,
    text: `Your login code is ${code}\nhttps://fds.example/auth/magic?c=1&t=link-token-${code}`,
    ...(idempotencyKey ? { idempotencyKey } : {}),
  };
}

describe('OutboxMailer', () => {
  let dataDir: string;
  const lines: string[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outbox-'));
    configureLogging({ level: 'info', sink: (line) => lines.push(line) });
  });
  afterAll(async () => {
    configureLogging({ level: LOG_LEVEL, sink: (line) => process.stdout.write(line + '\n') });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('writes a parsable .eml file and logs its name', async () => {
    const mailer = createMailer(loadConfig({ DATA_DIR: dataDir, MAIL_FROM: FROM }));
    expect(mailer).toBeInstanceOf(OutboxMailer);
    await mailer.send(loginMail('Alice@Example.com', '482913'));

    const mails = await readOutbox(dataDir);
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail.file).toMatch(/outbox\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z_alice_example\.com_[0-9a-f]{6}\.eml$/);
    expect(mail.to.map((a) => a.toLowerCase())).toEqual(['alice@example.com']); // nodemailer lower-cases the domain
    expect(mail.from).toBe(FROM);
    expect(mail.subject).toBe('Ihr Anmeldecode für FDS – ✓');
    expect(mail.text).toContain(LONG_LINE.trim());
    expect(extractCode(mail.text)).toBe('482913');
    expect(mail.headers['date']).toBeTruthy();
    expect(mail.messageId).toMatch(/^<.+@.+>$/);
    // RFC 5322: CRLF line ends, no raw 8-bit bytes in the headers.
    const raw = await readFile(mail.file, 'latin1');
    expect(raw).toContain('\r\n\r\n');
    expect(raw.replace(/\r\n/g, '')).not.toMatch(/\n/);
    expect(raw.slice(0, raw.indexOf('\r\n\r\n'))).toMatch(/^[\x20-\x7e\r\n\t]*$/);

    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['file'] === mail.file);
    expect(logged).toMatchObject({ level: 'info', app: 'mail', to: 'Alice@Example.com' });
    expect(String(logged!['msg'])).toContain(mail.file);
  });

  it('writes a mail once per idempotency key', async () => {
    const mailer = new OutboxMailer(dataDir, FROM);
    const before = (await readOutbox(dataDir)).length;
    await Promise.all([
      mailer.send(loginMail('bob@example.com', '111111', { idempotencyKey: 'invite:bob' })),
      mailer.send(loginMail('bob@example.com', '111111', { idempotencyKey: 'invite:bob' })),
    ]);
    await mailer.send(loginMail('bob@example.com', '111111', { idempotencyKey: 'invite:bob' }));
    await mailer.send(loginMail('bob@example.com', '222222', { idempotencyKey: 'invite:bob:2' }));
    const mails = (await readOutbox(dataDir)).slice(before);
    expect(mails.map((m) => extractCode(m.text))).toEqual(['111111', '222222']);
    // No temp files left where `ls` shows them.
    expect((await readdir(join(dataDir, 'outbox'))).filter((n) => !n.endsWith('.eml') && !n.startsWith('.'))).toEqual([]);
  });

  it('logs the kind and Message-ID of a mail, never its subject or text (they carry the code and link)', async () => {
    const mailer = new OutboxMailer(dataDir, FROM);
    lines.length = 0;
    await mailer.send(secretMail('frank@example.com', '246810'));
    expect(lines.join('\n')).not.toMatch(/246810|link-token-246810/);
    expect(JSON.parse(lines.find((l) => l.includes('"app":"mail"'))!)).toMatchObject({
      level: 'info',
      kind: 'login',
      to: 'frank@example.com',
      message_id: expect.stringMatching(/^<.+@.+>$/),
    });
  });

  it('keeps text and HTML alternatives; waitForOutbox finds mail written later', async () => {
    const mailer = new OutboxMailer(dataDir, FROM);
    setTimeout(() => void mailer.send(loginMail('carol@example.com', '654321', { html: true })), 100);
    const mail = await waitForOutbox(dataDir, (m) => m.to.includes('carol@example.com'), 5000);
    expect(extractCode(mail.text)).toBe('654321');
    expect(mail.html).toBe('<p>Your login code is <b>654321</b></p>');
  });
});

describe('SmtpMailer', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink?.close();
  });

  it('delivers to the SMTP server named by SMTP_URL', async () => {
    const mailer = createMailer(loadConfig({ SMTP_URL: sink.url, MAIL_FROM: FROM }));
    expect(mailer).toBeInstanceOf(SmtpMailer);
    await mailer.send(loginMail('dave@example.com', '907311', { html: true }));
    const mail = await sink.waitFor((m) => m.to.includes('dave@example.com'), 5000);
    expect(mail.subject).toBe('Ihr Anmeldecode für FDS – ✓');
    expect(mail.from).toBe(FROM);
    expect(extractCode(mail.text)).toBe('907311');
    expect(mail.text).toContain(LONG_LINE.trim());
    expect(mail.html).toContain('907311');
    await (mailer as SmtpMailer).close();
  });

  it('authenticates with credentials from the URL, and skips a repeated idempotency key', async () => {
    const mailer = new SmtpMailer(sink.url.replace('smtp://', 'smtp://user:secret@'), FROM);
    expect(await mailer.verify()).toBe(true);
    const before = sink.messages.length;
    await mailer.send(loginMail('erin@example.com', '123987', { idempotencyKey: 'login:erin:1' }));
    await mailer.send(loginMail('erin@example.com', '123987', { idempotencyKey: 'login:erin:1' }));
    const mail = await sink.waitFor((m) => m.to.includes('erin@example.com'));
    expect(extractCode(mail.text)).toBe('123987');
    expect(sink.messages.length - before).toBe(1);
    await mailer.close();
  });

  it('logs the kind and Message-ID of a mail, never its subject or text, also when it skips a repeat', async () => {
    const lines: string[] = [];
    configureLogging({ level: 'debug', sink: (line) => lines.push(line) });
    try {
      const mailer = new SmtpMailer(sink.url, FROM);
      await mailer.send(secretMail('gina@example.com', '135792', 'login:gina:1'));
      await mailer.send(secretMail('gina@example.com', '135792', 'login:gina:1'));
      await mailer.close();
    } finally {
      configureLogging({ level: LOG_LEVEL, sink: (line) => process.stdout.write(line + '\n') });
    }
    expect(lines.join('\n')).not.toMatch(/135792|login:gina/);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['app'] === 'mail');
    expect(logged.map((l) => [l['msg'], l['kind']])).toEqual([
      ['mail sent', 'login'],
      ['mail already sent, skipped', 'login'],
    ]);
    expect(logged[1]['message_id']).toBe(logged[0]['message_id']);
  });

  it('waitFor rejects after its timeout', async () => {
    await expect(sink.waitFor((m) => m.to.includes('nobody@example.com'), 100)).rejects.toThrow(/no matching mail/);
  });
});

describe('parseMail', () => {
  it('decodes base64 bodies and encoded-word headers', () => {
    const raw = [
      'From: "Ops" <ops@example.com>',
      'To: a@example.com, "B, Person" <b@example.com>',
      'Subject: =?UTF-8?B?Q29kZTog?=',
      ' =?UTF-8?Q?=C3=BCber?=',
      'Content-Type: multipart/mixed; boundary="XX"',
      '',
      '--XX',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('Dein Code: 555123 – gültig').toString('base64'),
      '--XX',
      'Content-Type: application/pdf',
      'Content-Disposition: attachment; filename=a.pdf',
      '',
      'JVBERi0=',
      '--XX--',
      '',
    ].join('\r\n');
    const mail = parseMail(raw);
    expect(mail.subject).toBe('Code: über');
    expect(mail.to).toEqual(['a@example.com', 'b@example.com']);
    expect(mail.from).toBe('ops@example.com');
    expect(mail.text).toBe('Dein Code: 555123 – gültig');
    expect(extractCode(mail.text)).toBe('555123');
    expect(extractCode('order 1234567 and 12345')).toBeNull();
  });
});
