import type { ServiceConfig } from '../config/config.js';
import type { Mailer } from './mailer.js';

/** SMTP when SMTP_URL is set, otherwise `.eml` files under DATA_DIR/outbox. */
export function createMailer(config: ServiceConfig): Mailer {
  throw new Error('not implemented yet');
}
