import { Inject, Injectable } from '@nestjs/common';
import { IdentityMessages } from '@app/contracts';
import { JobQueue, JsonLogger, MAIL_JOB, MAIL_QUEUE, type MailMessage, MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { AdminStore } from '../../repositories/admin.store.js';
import { type SecurityEventRow } from '../../repositories/security-event.repository.js';
import { Clock } from '../../services/clock.js';

const OPERATORS_TIMEOUT_MS = 5_000;

/**
 * Mails a critical security event to every full administrator (the operator customer's enabled
 * owners and editors, asked of identity: IdentityMessages.operatorEmails) through the worker's
 * mail queue, and sets `notified_at`. The claim on notified_at keeps replicas from mailing
 * twice; a failed attempt releases it, and RetryOperatorNotifications tries again.
 */
@Injectable()
export class NotifyOperators {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** True when the event was handed to the mail queue. */
  async execute(event: SecurityEventRow): Promise<boolean> {
    if (!(await this.adminStore.repos.securityEvents.claimNotification(event.id, this.clock.now()))) return false;
    try {
      const { emails } = await this.bus.send(IdentityMessages.operatorEmails, {}, { timeoutMs: OPERATORS_TIMEOUT_MS });
      if (emails.length === 0) throw new Error('no enabled owner or editor in the operator customer');
      for (const to of emails) {
        await this.jobs.add<MailMessage>(MAIL_QUEUE, MAIL_JOB, this.render(event, to), { jobId: `security-event:${event.id}:${to}` });
      }
      return true;
    } catch (err) {
      await this.adminStore.repos.securityEvents.releaseNotification(event.id).catch(() => undefined);
      this.logger.warn('critical security event not mailed yet; retried every minute', {
        id: event.id,
        kind: event.kind,
        error: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
  }

  private render(event: SecurityEventRow, to: string): MailMessage {
    return {
      kind: 'security_alert',
      to,
      subject: `Security alert (critical): ${event.kind}${event.domain ? ` on ${event.domain}` : ''}`,
      text: [
        `A critical security event was recorded by ${this.config.publicUrl}.`,
        '',
        `Event id: ${event.id}`,
        `Kind:     ${event.kind}`,
        `Time:     ${event.ts}`,
        `Customer: ${event.domain ?? '(none)'}`,
        `Address:  ${event.ip ?? '(unknown)'}`,
        `Detail:   ${JSON.stringify(event.detail)}`,
        '',
        `List events: GET ${this.config.publicUrl}/admin/security/events?unacked=true`,
        `Acknowledge: POST ${this.config.publicUrl}/admin/security/events/${event.id}/ack`,
      ].join('\n'),
      idempotencyKey: `security-event:${event.id}:${to}`,
    };
  }
}
