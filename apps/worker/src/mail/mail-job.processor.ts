import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { type JobInfo, JobQueue, JsonLogger, MAIL_JOB, MAIL_QUEUE, Mailer, type MailMessage } from '@app/infra';

/**
 * Sends the mail other apps queue (MAIL_QUEUE / MAIL_JOB). Jobs are at-least-once: the mailer's
 * idempotencyKey keeps a retried job from sending twice where the adapter can tell. A failed
 * send throws, so the queue retries it; a job that can never succeed (unknown name, not a mail)
 * is logged and dropped instead of being retried.
 */
@Injectable()
export class MailJobProcessor implements OnApplicationBootstrap {
  private readonly logger = new JsonLogger('worker');

  constructor(
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(Mailer) private readonly mailer: Mailer,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.process<MailMessage>(MAIL_QUEUE, (job) => this.handle(job));
  }

  async handle(job: JobInfo<MailMessage>): Promise<void> {
    if (job.name !== MAIL_JOB) {
      this.logger.write('warn', 'unknown job in the mail queue dropped', { job_id: job.id, name: job.name });
      return;
    }
    if (!isMailMessage(job.data)) {
      this.logger.write('error', 'malformed mail job dropped', { job_id: job.id });
      return;
    }
    await this.mailer.send(job.data);
  }
}

export function isMailMessage(value: unknown): value is MailMessage {
  if (!value || typeof value !== 'object') return false;
  const m = value as Record<string, unknown>;
  return (
    (m.kind === undefined || typeof m.kind === 'string') &&
    typeof m.to === 'string' &&
    m.to.includes('@') &&
    typeof m.subject === 'string' &&
    typeof m.text === 'string' &&
    (m.html === undefined || typeof m.html === 'string') &&
    (m.idempotencyKey === undefined || typeof m.idempotencyKey === 'string')
  );
}
