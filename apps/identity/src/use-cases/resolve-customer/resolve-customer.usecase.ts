import { Inject, Injectable } from '@nestjs/common';
import { asCustomerId, isUuid, type CustomerInfo, type CustomerLookup } from '@app/contracts';
import { toCustomerInfo } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';

/** The gateway's customer lookup (for `customer=`, update checks, token customers). Unknown: null. */
@Injectable()
export class ResolveCustomerUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(lookup: CustomerLookup): Promise<CustomerInfo | null> {
    const customers = this.store.repos.customers;
    if ('id' in lookup && typeof lookup.id === 'string') {
      if (!isUuid(lookup.id)) return null;
      const customer = await customers.findById(asCustomerId(lookup.id.toLowerCase()));
      return customer ? toCustomerInfo(customer) : null;
    }
    if ('domain' in lookup && typeof lookup.domain === 'string') {
      const customer = await customers.findByDomain(lookup.domain.trim().toLowerCase());
      return customer ? toCustomerInfo(customer) : null;
    }
    return null;
  }
}
