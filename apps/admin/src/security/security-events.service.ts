import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  AdminErrors,
  type EndpointCall,
  IdentityMessages,
  type SecurityEventIdParams,
  type SecurityEventInput,
  type SecurityEventsQuery,
  type SecurityEventView,
  recordedJson,
  recordedText,
} from '@app/contracts';
import { JobQueue, JsonLogger, MAIL_JOB, MAIL_QUEUE, type MailMessage, MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../services/clock.js';
import { type SecurityEventRow } from '../repositories/security-event.repository.js';
import { AdminStore } from '../repositories/admin.store.js';

const SEVERITIES: ReadonlySet<string> = new Set(['info', 'warn', 'critical']);
/** Unmailed critical events are retried this often, for this long. */
export const NOTIFY_RETRY_EVERY_MS = 60_000;
export const NOTIFY_RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const OPERATORS_TIMEOUT_MS = 5_000;

/**
 * Security events; a critical one is also emailed to the operators. Any app
 * reports events (AdminEvents.securityEvent); one admin replica stores each. A critical one is
 * mailed at once to every full administrator (the operator customer's enabled owners and
 * editors, asked of identity: IdentityMessages.operatorEmails) through the worker's mail queue,
 * and `notified_at` is set. The claim on notified_at keeps replicas from mailing twice; a failed
 * attempt releases it and a timer retries every minute for a day.
 */
@Injectable()
export class SecurityEventsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('admin');
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(AuditService) private readonly audit: AuditService,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.retryNotifications(), NOTIFY_RETRY_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Null for a malformed event and for an `eventId` stored before (a relayed event arriving
   * again): only the first arrival is mailed.
   */
  async record(event: SecurityEventInput, eventId: string | null = null): Promise<SecurityEventRow | null> {
    const ts = typeof event?.ts === 'string' ? new Date(event.ts) : new Date(NaN);
    if (Number.isNaN(ts.getTime()) || typeof event.kind !== 'string' || !event.kind || !SEVERITIES.has(event.severity)) {
      this.logger.write('warn', 'ignored malformed security event', { event: event as unknown as Record<string, unknown> });
      return null;
    }
    const row = await this.adminStore.repos.securityEvents.insert(
      {
        ts: ts.toISOString(),
        kind: recordedText(event.kind, 100),
        severity: event.severity,
        ip: event.ip ? recordedText(event.ip, 64) : null,
        domain: event.domain ? recordedText(event.domain, 253) : null,
        detail: event.detail && typeof event.detail === 'object' && !Array.isArray(event.detail) ? (recordedJson(event.detail) as Record<string, unknown>) : {},
      },
      eventId,
    );
    if (!row) return null;
    if (row.severity === 'critical') await this.notify(row);
    return row;
  }

  async list(call: EndpointCall<Record<string, never>, SecurityEventsQuery, undefined>): Promise<{ items: SecurityEventView[] }> {
    const q = call.query ?? ({} as SecurityEventsQuery);
    const items = await this.adminStore.repos.securityEvents.list({ kind: q.kind, severity: q.severity, unacked: q.unacked, limit: q.limit ?? 100 });
    return { items };
  }

  async ack(call: EndpointCall<SecurityEventIdParams, Record<string, never>, undefined>): Promise<void> {
    const id = Number(call.params.id);
    if (!Number.isSafeInteger(id) || id < 1) throw AdminErrors.security_event_id_invalid();
    const actor = call.ctx.actor;
    const result = await this.adminStore.repos.securityEvents.ack(id, actor, this.clock.now());
    if (!result) throw AdminErrors.security_event_not_found();
    if (!result.changed) return;
    await this.audit.store({
      ts: this.clock.now().toISOString(),
      domain: result.row.domain,
      actor: `admin:${actor}`,
      action: 'security_event.ack',
      target_type: 'security_event',
      target_id: String(id),
      before: { acked_at: null, acked_by: null },
      after: { acked_at: result.row.acked_at, acked_by: result.row.acked_by },
    });
  }

  /** Mails a critical event to the operators; true when it was handed to the mail queue. */
  async notify(event: SecurityEventRow): Promise<boolean> {
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

  async retryNotifications(): Promise<void> {
    try {
      const pending = await this.adminStore.repos.securityEvents.unnotifiedCritical(new Date(this.clock.now().getTime() - NOTIFY_RETRY_WINDOW_MS));
      for (const event of pending) await this.notify(event);
    } catch (err) {
      this.logger.warn('security event notification retry failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  render(event: SecurityEventRow, to: string): MailMessage {
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
