import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type CustomerSettings, type EndpointCall, type NoParams, requireTenant } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { IdentityStore } from '../../repositories/identity.store.js';
import { settingsOf } from './customer-settings.js';

/** GET /settings: the caller's customer's settings. */
@Injectable()
export class ReadCustomerSettingsUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(call: EndpointCall<NoParams, NoParams, undefined>): Promise<CustomerSettings> {
    const customer = await this.store.repos.customers.findById(requireTenant(call.ctx).customer.id);
    if (!customer) throw CommonErrors.customer_not_found();
    return settingsOf(customer, this.config.updatePollSeconds);
  }
}
