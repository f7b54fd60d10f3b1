import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { configureLogging, type JobHandler, type JobInfo, JobQueue, type JobRecord, MAIL_JOB, MAIL_QUEUE, Mailer, type MailMessage } from '@app/infra';
import { isMailMessage, MailJobProcessor } from './mail-job.processor.js';

configureLogging({ sink: () => undefined });

class RecordingQueue extends JobQueue {
  readonly handlers = new Map<string, JobHandler<unknown>>();
  async add(): Promise<void> {}
  process<T>(queue: string, handler: JobHandler<T>): void {
    this.handlers.set(queue, handler as JobHandler<unknown>);
  }
  async schedule(): Promise<void> {}
  async list(): Promise<JobRecord[]> {
    return [];
  }
  async close(): Promise<void> {}
}

class RecordingMailer extends Mailer {
  readonly sent: MailMessage[] = [];
  fail: Error | null = null;
  async send(message: MailMessage): Promise<void> {
    if (this.fail) throw this.fail;
    this.sent.push(message);
  }
}

const mail: MailMessage = { to: 'someone@example.com', subject: 'Your code', text: '123456', idempotencyKey: 'login:1' };
const job = (data: unknown, name = MAIL_JOB): JobInfo<MailMessage> => ({ id: 'j1', name, data: data as MailMessage, attempt: 1 });

async function boot() {
  const queue = new RecordingQueue();
  const mailer = new RecordingMailer();
  const moduleRef = await Test.createTestingModule({
    providers: [MailJobProcessor, { provide: JobQueue, useValue: queue }, { provide: Mailer, useValue: mailer }],
  }).compile();
  await moduleRef.init(); // runs onApplicationBootstrap
  return { queue, mailer, handler: queue.handlers.get(MAIL_QUEUE)!, moduleRef };
}

describe('MailJobProcessor', () => {
  it('registers the mail queue handler on application bootstrap and sends the job data', async () => {
    const { mailer, handler, moduleRef } = await boot();
    expect(handler).toBeDefined();
    await handler(job(mail));
    expect(mailer.sent).toEqual([mail]);
    await moduleRef.close();
  });

  it('lets a failed send throw so that the queue retries it', async () => {
    const { mailer, handler, moduleRef } = await boot();
    mailer.fail = new Error('smtp down');
    await expect(handler(job(mail))).rejects.toThrow('smtp down');
    await moduleRef.close();
  });

  it('drops jobs that can never succeed instead of retrying them', async () => {
    const { mailer, handler, moduleRef } = await boot();
    await handler(job(mail, 'other'));
    await handler(job({ to: 'nobody', subject: 1 }));
    expect(mailer.sent).toEqual([]);
    await moduleRef.close();
  });
});

describe('isMailMessage', () => {
  it('accepts a MailMessage and refuses other shapes', () => {
    expect(isMailMessage(mail)).toBe(true);
    expect(isMailMessage({ ...mail, html: '<p>x</p>' })).toBe(true);
    expect(isMailMessage({ ...mail, to: 'no-at-sign' })).toBe(false);
    expect(isMailMessage({ ...mail, text: undefined })).toBe(false);
    expect(isMailMessage(null)).toBe(false);
  });
});
