import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type CustomerDeletion, IdentityErrors, IdentityEvents } from '@app/contracts';
import { MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { toCustomerView } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { CredentialEvents } from '../../services/credential-events.service.js';
import { FinishCustomerDeletionUseCase } from '../finish-customer-deletion/finish-customer-deletion.usecase.js';
import type { DeleteCustomerCommand } from './delete-customer.command.js';

/**
 * DELETE /admin/customers/{domain}?confirm=<domain>. Records the deletion (status `deleting`,
 * with the `customer.delete` audit entry in the same transaction; the audit log outlives the
 * customer), which at once hides the customer and stops its tokens and sessions (gateways told
 * by customerChanged and credentialRevoked), then lets FinishCustomerDeletionUseCase erase everything. A
 * repeated call resumes a deletion under way. The operator and sandbox customers cannot be
 * deleted (400): the one would lock every administrator out, the other comes from SANDBOX_DOMAIN.
 */
@Injectable()
export class DeleteCustomerUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(CredentialEvents) private readonly credentials: CredentialEvents,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(FinishCustomerDeletionUseCase) private readonly finish: FinishCustomerDeletionUseCase,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(command: DeleteCustomerCommand): Promise<CustomerDeletion> {
    const { domain } = command;
    if (command.confirm === undefined || command.confirm.trim().toLowerCase() !== domain) throw IdentityErrors.customer_delete_unconfirmed();
    if (domain === this.config.operatorDomain) throw IdentityErrors.operator_customer_undeletable();
    if (domain === this.config.sandboxDomain) throw IdentityErrors.sandbox_customer_undeletable();
    const now = this.clock.now();
    const recorded = await this.store.transaction(async (repos) => {
      const customer = await repos.customers.findByDomainEvenDeleting(domain);
      if (!customer) throw CommonErrors.customer_not_found();
      if (customer.isSandbox) throw IdentityErrors.sandbox_customer_undeletable();
      if (customer.status === 'deleting') return { customer, sessions: [] as string[] };
      const before = toCustomerView(customer);
      await repos.customers.setStatus({ customerId: customer.id, status: 'deleting', at: now });
      const sessions = await repos.sessions.revokeOpen({ customerId: customer.id, at: now, reason: 'customer_deleted' });
      await this.audit.record({ actor: command.actor, domain, action: 'customer.delete', targetType: 'customer', targetId: domain, before, after: {} }, repos);
      return { customer, sessions };
    });
    this.bus.emit(IdentityEvents.customerChanged, { id: recorded.customer.id, domain });
    this.credentials.revoked('session', recorded.sessions);
    return { done: await this.finish.execute({ customerId: recorded.customer.id, domain }) };
  }
}
