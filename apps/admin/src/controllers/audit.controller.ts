import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { AdminEvents, AdminMessages, type EventPayload, type MessageRequest, requireTenant } from '@app/contracts';
import { AuditService } from '../audit/audit.service.js';
import { RelayedRecordsService } from '../audit/relayed-records.service.js';
import { SecurityEventsService } from '../security/security-events.service.js';
import { ListAuditCommand } from '../use-cases/list-audit/list-audit.command.js';
import { ListAudit } from '../use-cases/list-audit/list-audit.usecase.js';

type Events<E> = Record<string, EventPayload<E>>;

/** Audit entries and security events: stored from any app's events, read by the admin API. */
@Controller()
export class AuditController {
  constructor(
    @Inject(AuditService) private readonly audit: AuditService,
    @Inject(SecurityEventsService) private readonly securityEvents: SecurityEventsService,
    @Inject(RelayedRecordsService) private readonly relayed: RelayedRecordsService,
    @Inject(ListAudit) private readonly listAuditPage: ListAudit,
  ) {}

  /** From the apps' outbox relays (acknowledged, idempotent by id). */
  @MessagePattern(AdminMessages.storeRecords.pattern)
  storeRecords(@Payload() batch: MessageRequest<typeof AdminMessages.storeRecords>) {
    return this.relayed.store(batch);
  }

  /** The unacknowledged events of earlier versions (kept while such producers may still run). */
  @EventPattern<Events<typeof AdminEvents.audit>>(AdminEvents.audit.subject)
  auditEvent(@Payload() entry: EventPayload<typeof AdminEvents.audit>) {
    return this.audit.store(entry);
  }

  @EventPattern<Events<typeof AdminEvents.securityEvent>>(AdminEvents.securityEvent.subject)
  async securityEvent(@Payload() event: EventPayload<typeof AdminEvents.securityEvent>) {
    await this.securityEvents.record(event);
  }

  @MessagePattern(AdminMessages.listAudit.pattern)
  listAudit(@Payload() call: MessageRequest<typeof AdminMessages.listAudit>) {
    return this.listAuditPage.execute(ListAuditCommand.forAdministrators(call.query));
  }

  @MessagePattern(AdminMessages.listCustomerAudit.pattern)
  listCustomerAudit(@Payload() call: MessageRequest<typeof AdminMessages.listCustomerAudit>) {
    return this.listAuditPage.execute(ListAuditCommand.forCustomer(requireTenant(call.ctx).customer, call.query));
  }

  @MessagePattern(AdminMessages.listSecurityEvents.pattern)
  listSecurityEvents(@Payload() call: MessageRequest<typeof AdminMessages.listSecurityEvents>) {
    return this.securityEvents.list(call);
  }

  @MessagePattern(AdminMessages.ackSecurityEvent.pattern)
  ack(@Payload() call: MessageRequest<typeof AdminMessages.ackSecurityEvent>) {
    return this.securityEvents.ack(call);
  }
}
