import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors } from '@app/contracts';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';
import { RecordAuditEntry } from '../record-audit-entry/record-audit-entry.usecase.js';
import type { AcknowledgeSecurityEventCommand } from './acknowledge-security-event.command.js';

/** Marks a security event acknowledged by the administrator, audited once (acknowledging it again changes nothing). */
@Injectable()
export class AcknowledgeSecurityEvent {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(RecordAuditEntry) private readonly audit: RecordAuditEntry,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: AcknowledgeSecurityEventCommand): Promise<void> {
    const { id, actor } = command;
    const result = await this.adminStore.repos.securityEvents.ack(id, actor, this.clock.now());
    if (!result) throw AdminErrors.security_event_not_found();
    if (!result.changed) return;
    await this.audit.execute({
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
}
