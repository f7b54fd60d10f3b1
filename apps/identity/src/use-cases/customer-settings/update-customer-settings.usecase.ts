import { Inject, Injectable } from '@nestjs/common';
import {
  CommonErrors,
  type CustomerSettings,
  type EndpointCall,
  IdentityEvents,
  type NoParams,
  requireTenant,
  UpdateCustomerSettingsRequest,
} from '@app/contracts';
import { MessageBus, type ServiceConfig } from '@app/infra';
import { contractCheck, SERVICE_CONFIG } from '@app/platform';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { settingsOf } from './customer-settings.js';

const validChange = contractCheck(UpdateCustomerSettingsRequest, { where: 'body' });

/**
 * PATCH /settings: the customer's polling interval. Every app drops its cached customer
 * (customerChanged), so update checks advise the new interval within CREDENTIAL_CACHE_SECONDS.
 * Audited as `customer.settings` with the settings before and after.
 */
@Injectable()
export class UpdateCustomerSettingsUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(call: EndpointCall<NoParams, NoParams, UpdateCustomerSettingsRequest>): Promise<CustomerSettings> {
    const ctx = requireTenant(call.ctx);
    const change = validChange(call.body ?? {});
    const { before, after, domain } = await this.store.transaction(async (repos) => {
      const customer = await repos.customers.findById(ctx.customer.id);
      if (!customer) throw CommonErrors.customer_not_found();
      if (change.poll_interval_seconds !== undefined)
        await repos.customers.setPollInterval({ customerId: customer.id, seconds: change.poll_interval_seconds, at: this.clock.now() });
      const updated = (await repos.customers.findById(customer.id))!;
      return { before: settingsOf(customer, this.config.updatePollSeconds), after: settingsOf(updated, this.config.updatePollSeconds), domain: updated.domain };
    });
    this.bus.emit(IdentityEvents.customerChanged, { id: ctx.customer.id, domain });
    if (before.poll_interval_seconds !== after.poll_interval_seconds)
      await this.audit.record({ actor: ctx.auditActor, domain, action: 'customer.settings', targetType: 'customer', targetId: domain, before, after });
    return after;
  }
}
