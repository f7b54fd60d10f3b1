import { Inject, Injectable } from '@nestjs/common';
import type { SecuritySeverity } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { IdentityStore, type IdentityRepositories } from '../repositories/identity.store.js';
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
 * The identity app's side of the audit log and the security events: both are written to the
 * identity outbox (`repos`: a transaction's own, so the entry commits with its change; else
 * right after it) and relayed at least once to the admin app (OutboxRelay), which stores each
 * id once and mails critical events to the operators. Each is also one log line.
 */
@Injectable()
export class AuditTrail {
  private readonly logger = new JsonLogger('identity');

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async record(entry: AuditRecord, repos: IdentityRepositories = this.store.repos): Promise<void> {
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
    await repos.outbox.audit(event);
    this.logger.write('debug', 'audit', { audit: event });
  }

  async securityEvent(event: SecurityEventRecord, repos: IdentityRepositories = this.store.repos): Promise<void> {
    const payload = { ts: this.clock.now().toISOString(), ...event };
    await repos.outbox.securityEvent(payload);
    this.logger.write(event.severity === 'critical' ? 'warn' : 'info', 'security event', { security_event: payload });
  }
}
