import type { ServiceConfig } from '../config/config.js';
import { OutboxMailer, SmtpMailer } from './mail-adapters.js';
import type { Mailer } from './mailer.js';

export { OutboxMailer, SmtpMailer } from './mail-adapters.js';

const instances = new Map<string, Mailer>();

/** SMTP when SMTP_URL is set, otherwise `.eml` files under DATA_DIR/outbox. One per configuration. */
export function createMailer(config: ServiceConfig): Mailer {
  const key = config.smtpUrl ? `smtp:${config.smtpUrl}|${config.mailFrom}` : `outbox:${config.dataDir}|${config.mailFrom}`;
  let mailer = instances.get(key);
  if (!mailer) {
    mailer = config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new OutboxMailer(config.dataDir, config.mailFrom);
    instances.set(key, mailer);
  }
  return mailer;
}
