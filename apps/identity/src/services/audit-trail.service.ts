import { Inject, Injectable } from '@nestjs/common';
import { AdminEvents, type SecuritySeverity } from '@app/contracts';
import { JsonLogger, MessageBus } from '@app/infra';
import { Clock } from './clock.js';

/** An audit entry: who changed what on which customer, with the object before and after. */
export interface AuditRecord {
  readonly actor: string;
  readonly domain: string | null;
  readonly action: string;
  readonly targetType: string;
  readonly targetId: string;
  readonly before: Record<string, unknown> | null;
  readonly after: Record<string, unknown> | null;
}

/** A security event (the kinds the identity app raises). */
export interface SecurityEventRecord {
  readonly kind: string;
  readonly severity: SecuritySeverity;
  readonly ip: string | null;
  readonly domain: string | null;
  readonly detail: Record<string, unknown>;
}

/**
 * The identity app's side of the audit log and the security events: both are stored by the
 * admin app, which receives them as queue events (AdminEvents.audit, AdminEvents.securityEvent;
 * one admin replica stores each, critical events are mailed to the operators there). Events
 * are fire-and-forget like the request log; each is also one log line, so nothing is lost
 * silently when the admin app is down.
 */
@Injectable()
export class AuditTrail {
  private readonly logger = new JsonLogger('identity');

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async record(entry: AuditRecord): Promise<void> {
    const event = {
      ts: this.clock.now().toISOString(),
      domain: entry.domain,
      actor: entry.actor,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId,
      before: entry.before,
      after: entry.after,
    };
    this.bus.emit(AdminEvents.audit, event);
    this.logger.write('debug', 'audit', { audit: event });
  }

  async securityEvent(event: SecurityEventRecord): Promise<void> {
    const payload = { ts: this.clock.now().toISOString(), ...event };
    this.bus.emit(AdminEvents.securityEvent, payload);
    this.logger.write(event.severity === 'critical' ? 'warn' : 'info', 'security event', { security_event: payload });
  }
}
