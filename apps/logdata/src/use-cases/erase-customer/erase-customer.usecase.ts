import { Inject, Injectable } from '@nestjs/common';
import { asCustomerId, type CustomerErased, type CustomerErasure } from '@app/contracts';
import { ObjectStore } from '@app/infra';
import { LogdataStore } from '../../repositories/logdata.store.js';

/**
 * Customer deletion (identity asks): every stored log file of the customer, then its rows.
 * Files first, rows last: after a crash midway the rows still name the files, and asking again
 * deletes what is left (deleting an absent file succeeds), so the call is idempotent.
 */
@Injectable()
export class EraseCustomerUseCase {
  constructor(
    @Inject(LogdataStore) private readonly store: LogdataStore,
    @Inject(ObjectStore) private readonly objects: ObjectStore,
  ) {}

  async execute(request: CustomerErasure): Promise<CustomerErased> {
    const customerId = asCustomerId(String(request.customerId));
    const keys = await this.store.repos.files.objectKeysOfCustomer(customerId);
    for (const key of keys) await this.objects.delete(key);
    const rows = await this.store.repos.files.deleteCustomerRows(customerId);
    return { rows, objects: keys.length };
  }
}
