import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type CustomerView, IdentityErrors, IdentityEvents } from '@app/contracts';
import { MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { toCustomerView } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { CredentialEvents } from '../../services/credential-events.service.js';
import type { UpdateCustomerCommand } from './update-customer.command.js';

/**
 * PATCH /admin/customers/{domain}: name, status, cors_origins and the domain itself.
 *
 * - Renaming is cheap: every app keeps customers by id, tokens name their customer by id (`cid`;
 *   their `cust` claim keeps the old domain, informational), gateways drop their cached lookups
 *   (customerChanged with the previous domain). Devices must then ask the update check under the
 *   new domain. The operator's and the sandbox's domains come from OPERATOR_DOMAIN and
 *   SANDBOX_DOMAIN and cannot be renamed here (400); a taken domain is 409.
 * - Suspending: the customer's tokens stop working (the gateway refuses
 *   credentials of a suspended customer; they work again after reactivation) and its sessions
 *   end (revoked, gateways told at once). The operator customer cannot be suspended (400): it
 *   would lock every administrator out.
 * Every change writes a `customer.update` audit entry with the whole customer before and after.
 */
@Injectable()
export class UpdateCustomerUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(CredentialEvents) private readonly credentials: CredentialEvents,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(command: UpdateCustomerCommand): Promise<{ customer: CustomerView }> {
    const { change } = command;
    const now = this.clock.now();
    const result = await this.store.transaction(async (repos) => {
      const customer = await repos.customers.findByDomain(command.domain);
      if (!customer) throw CommonErrors.customer_not_found();
      const configured = customer.domain === this.config.operatorDomain || customer.domain === this.config.sandboxDomain;
      if (change.domain !== undefined && change.domain !== customer.domain && configured) {
        throw IdentityErrors.customer_domain_configured({
          domain: customer.domain,
          setting: customer.domain === this.config.operatorDomain ? 'OPERATOR_DOMAIN' : 'SANDBOX_DOMAIN',
        });
      }
      if (change.status === 'suspended' && customer.domain === this.config.operatorDomain) throw IdentityErrors.operator_customer_unsuspendable();
      const before = toCustomerView(customer);
      await repos.customers.update({ ...change, customerId: customer.id, at: now });
      const updated = (await repos.customers.findById(customer.id))!;
      const suspended = before.status === 'active' && updated.status === 'suspended';
      const sessions = suspended ? await repos.sessions.revokeOpen({ customerId: customer.id, at: now, reason: 'customer_suspended' }) : [];
      return { before, updated, sessions };
    });
    const after = toCustomerView(result.updated);
    this.bus.emit(IdentityEvents.customerChanged, {
      id: result.updated.id,
      domain: result.updated.domain,
      ...(result.before.domain !== after.domain ? { previousDomain: result.before.domain } : {}),
    });
    this.credentials.revoked('session', result.sessions);
    if (JSON.stringify({ ...result.before, updated_at: '' }) !== JSON.stringify({ ...after, updated_at: '' })) {
      await this.audit.record({
        actor: command.actor,
        domain: after.domain,
        action: 'customer.update',
        targetType: 'customer',
        targetId: after.domain,
        before: result.before,
        after,
      });
    }
    return { customer: after };
  }
}
