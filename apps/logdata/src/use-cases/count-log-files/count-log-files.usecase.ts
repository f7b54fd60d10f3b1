import { Inject, Injectable } from '@nestjs/common';
import type { CountsByCustomer, CustomerCounts } from '@app/contracts';
import { customerIdsOf } from '@app/platform';
import { LogdataStore } from '../../repositories/logdata.store.js';

/** For the admin customer list (cross-tenant on purpose): file count and stored bytes per requested customer, zero when none. */
@Injectable()
export class CountLogFilesUseCase {
  constructor(@Inject(LogdataStore) private readonly store: LogdataStore) {}

  async execute(request: CustomerCounts): Promise<CountsByCustomer> {
    const ids = request?.customerIds ?? [];
    const customerIds = customerIdsOf(ids);
    const found = await this.store.repos.files.countsByCustomer(customerIds);
    const result: Record<string, { count: number; storedBytes: number }> = {};
    ids.forEach((id, i) => {
      result[id] = found.get(customerIds[i]) ?? { count: 0, storedBytes: 0 };
    });
    return result;
  }
}
