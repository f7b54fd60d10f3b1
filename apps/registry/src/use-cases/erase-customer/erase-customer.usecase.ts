import { Inject, Injectable } from '@nestjs/common';
import { asCustomerId, type CustomerErased, type CustomerErasure } from '@app/contracts';
import { RegistryStore } from '../../repositories/registry.store.js';

/** Customer deletion (identity asks): every device, device tag, rollout offer, version change and device report of the customer, in one transaction. Idempotent. */
@Injectable()
export class EraseCustomer {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(request: CustomerErasure): Promise<CustomerErased> {
    const customerId = asCustomerId(String(request.customerId));
    const rows = await this.store.transaction(
      async (repos) =>
        (await repos.rolloutOffers.deleteCustomerRows(customerId)) +
        (await repos.reports.deleteCustomerRows(customerId)) +
        (await repos.deviceLists.deleteCustomerRows(customerId)),
    );
    return { rows, objects: 0 };
  }
}
