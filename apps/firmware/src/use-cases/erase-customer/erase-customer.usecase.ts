import { Inject, Injectable } from '@nestjs/common';
import { asCustomerId, type CustomerErased, type CustomerErasure } from '@app/contracts';
import { ObjectStore } from '@app/infra';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { FirmwareChanges } from '../../services/firmware-changes.js';

/**
 * Customer deletion (identity asks): every stored binary and notes file of the customer, then
 * its builds, tags and pending tag changes. Files first, rows last: after a crash midway the
 * rows still name the files, and asking again deletes what is left (deleting an absent file
 * succeeds), so the call is idempotent.
 */
@Injectable()
export class EraseCustomerUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(ObjectStore) private readonly objects: ObjectStore,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
  ) {}

  async execute(request: CustomerErasure): Promise<CustomerErased> {
    const customerId = asCustomerId(String(request.customerId));
    const keys = await this.store.repos.builds.objectKeysOfCustomer(customerId);
    for (const key of keys) await this.objects.delete(key);
    const rows = await this.store.transaction((repos) => repos.builds.deleteCustomerRows(customerId));
    this.changes.changed(customerId);
    return { rows, objects: keys.length };
  }
}
