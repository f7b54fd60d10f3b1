import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { AdminEvents, AdminMessages, type EventPayload, type MessageRequest, requireTenant } from '@app/contracts';
import { AcknowledgeSecurityEventCommand } from '../use-cases/acknowledge-security-event/acknowledge-security-event.command.js';
import { AcknowledgeSecurityEvent } from '../use-cases/acknowledge-security-event/acknowledge-security-event.usecase.js';
import { ListAuditCommand } from '../use-cases/list-audit/list-audit.command.js';
import { ListAudit } from '../use-cases/list-audit/list-audit.usecase.js';
import { ListSecurityEventsCommand } from '../use-cases/list-security-events/list-security-events.command.js';
import { ListSecurityEvents } from '../use-cases/list-security-events/list-security-events.usecase.js';
import { RecordAuditEntry } from '../use-cases/record-audit-entry/record-audit-entry.usecase.js';
import { RecordSecurityEvent } from '../use-cases/record-security-event/record-security-event.usecase.js';
import { StoreRelayedRecords } from '../use-cases/store-relayed-records/store-relayed-records.usecase.js';

type Events<E> = Record<string, EventPayload<E>>;

/**
 * Audit entries and security events: stored from any app's events, read by the admin API.
 * Handlers are async so that a command refused when built answers a rejected promise.
 */
@Controller()
export class AuditController {
  constructor(
    @Inject(RecordAuditEntry) private readonly recordAuditEntry: RecordAuditEntry,
    @Inject(RecordSecurityEvent) private readonly recordSecurityEvent: RecordSecurityEvent,
    @Inject(StoreRelayedRecords) private readonly storeRelayedRecords: StoreRelayedRecords,
    @Inject(ListAudit) private readonly listAuditPage: ListAudit,
    @Inject(ListSecurityEvents) private readonly listSecurityEventsPage: ListSecurityEvents,
    @Inject(AcknowledgeSecurityEvent) private readonly acknowledgeSecurityEvent: AcknowledgeSecurityEvent,
  ) {}

  /** From the apps' outbox relays (acknowledged, idempotent by id). */
  @MessagePattern(AdminMessages.storeRecords.pattern)
  storeRecords(@Payload() batch: MessageRequest<typeof AdminMessages.storeRecords>) {
    return this.storeRelayedRecords.execute(batch);
  }

  /** The unacknowledged events of earlier versions (kept while such producers may still run). */
  @EventPattern<Events<typeof AdminEvents.audit>>(AdminEvents.audit.subject)
  auditEvent(@Payload() entry: EventPayload<typeof AdminEvents.audit>) {
    return this.recordAuditEntry.execute(entry);
  }

  @EventPattern<Events<typeof AdminEvents.securityEvent>>(AdminEvents.securityEvent.subject)
  async securityEvent(@Payload() event: EventPayload<typeof AdminEvents.securityEvent>) {
    await this.recordSecurityEvent.execute(event);
  }

  @MessagePattern(AdminMessages.listAudit.pattern)
  async listAudit(@Payload() call: MessageRequest<typeof AdminMessages.listAudit>) {
    return this.listAuditPage.execute(ListAuditCommand.forAdministrators(call.query));
  }

  @MessagePattern(AdminMessages.listCustomerAudit.pattern)
  async listCustomerAudit(@Payload() call: MessageRequest<typeof AdminMessages.listCustomerAudit>) {
    return this.listAuditPage.execute(ListAuditCommand.forCustomer(requireTenant(call.ctx).customer, call.query));
  }

  @MessagePattern(AdminMessages.listSecurityEvents.pattern)
  async listSecurityEvents(@Payload() call: MessageRequest<typeof AdminMessages.listSecurityEvents>) {
    return this.listSecurityEventsPage.execute(ListSecurityEventsCommand.create({ query: call.query }));
  }

  @MessagePattern(AdminMessages.ackSecurityEvent.pattern)
  async ack(@Payload() call: MessageRequest<typeof AdminMessages.ackSecurityEvent>) {
    return this.acknowledgeSecurityEvent.execute(AcknowledgeSecurityEventCommand.create({ id: call.params.id, actor: call.ctx.actor }));
  }
}
