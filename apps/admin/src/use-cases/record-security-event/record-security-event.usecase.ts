import { Inject, Injectable } from '@nestjs/common';
import { recordedJson, recordedText, type SecurityEventInput } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { AdminStore } from '../../repositories/admin.store.js';
import { type SecurityEventRow } from '../../repositories/security-event.repository.js';
import { NotifyOperators } from '../notify-operators/notify-operators.usecase.js';

const SEVERITIES: ReadonlySet<string> = new Set(['info', 'warn', 'critical']);

/**
 * Stores a security event (docs/api.md "Security events"), reported by any app
 * (AdminEvents.securityEvent, relayed records) or raised by the detectors; one admin replica
 * stores each. A critical one is mailed to the operators at once (NotifyOperators).
 */
@Injectable()
export class RecordSecurityEvent {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(NotifyOperators) private readonly notifyOperators: NotifyOperators,
  ) {}

  /**
   * Null for a malformed event and for an `eventId` stored before (a relayed event arriving
   * again): only the first arrival is mailed.
   */
  async execute(event: SecurityEventInput, eventId: string | null = null): Promise<SecurityEventRow | null> {
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
    if (row.severity === 'critical') await this.notifyOperators.execute(row);
    return row;
  }
}
