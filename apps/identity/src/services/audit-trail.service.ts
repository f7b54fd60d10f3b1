import { Injectable } from '@nestjs/common';
import { JsonLogger } from '@app/infra';

/** SPEC "Audit entry". */
export interface AuditRecord {
  readonly actor: string;
  readonly domain: string | null;
  readonly action: string;
  readonly targetType: string;
  readonly targetId: string;
  readonly before: Record<string, unknown> | null;
  readonly after: Record<string, unknown> | null;
}

/** SPEC "Security event" (the part the identity app raises). */
export interface SecurityEventRecord {
  readonly kind: string;
  readonly severity: 'info' | 'warn' | 'critical';
  readonly ip: string | null;
  readonly domain: string | null;
  readonly detail: Record<string, unknown>;
}

/**
 * Seam for the audit store and the security-event store (owned by the admin app, later).
 * For now each record is one structured log line; callers already pass everything the
 * stores will need, so only this class changes when they arrive.
 */
@Injectable()
export class AuditTrail {
  private readonly logger = new JsonLogger('identity');

  async record(entry: AuditRecord): Promise<void> {
    this.logger.info('audit', {
      audit: {
        actor: entry.actor,
        domain: entry.domain,
        action: entry.action,
        target_type: entry.targetType,
        target_id: entry.targetId,
        before: entry.before,
        after: entry.after,
      },
    });
  }

  async securityEvent(event: SecurityEventRecord): Promise<void> {
    this.logger.info('security event', { security_event: event });
  }
}
