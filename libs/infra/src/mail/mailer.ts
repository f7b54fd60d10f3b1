export interface MailMessage {
  /**
   * What the mail is (`login`, `invitation`, `security_alert`): the adapters' log lines name it
   * and the Message-ID, never the subject or the text, which carry login codes and links.
   */
  readonly kind?: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
  /** Stable id so that a retried job does not send twice where the adapter can tell. */
  readonly idempotencyKey?: string;
}

/** Outgoing mail. Adapters: SMTP (SMTP_URL) and `.eml` files under DATA_DIR/outbox. */
export abstract class Mailer {
  abstract send(message: MailMessage): Promise<void>;
}

/** The job queue and job name through which apps ask the worker to send mail. */
export const MAIL_QUEUE = 'email';
export const MAIL_JOB = 'send';
