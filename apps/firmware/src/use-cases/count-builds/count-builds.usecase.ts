import { Inject, Injectable } from '@nestjs/common';
import { customerIdsOf } from '@app/platform';
import { FirmwareStore } from '../../repositories/firmware.store.js';

/** For the admin customer list (cross-tenant on purpose): builds, bytes stored (binaries and notes) and distinct build tags per requested customer, none when none. */
@Injectable()
export class CountBuildsUseCase {
  constructor(@Inject(FirmwareStore) private readonly store: FirmwareStore) {}

  async execute(request: { customerIds: readonly string[] }): Promise<Record<string, { firmware: number; storedBytes: number; tags: string[] }>> {
    const ids = request?.customerIds ?? [];
    const customerIds = customerIdsOf(ids);
    const found = await this.store.repos.builds.countsByCustomer(customerIds);
    const result: Record<string, { firmware: number; storedBytes: number; tags: string[] }> = {};
    ids.forEach((id, i) => {
      const entry = found.get(customerIds[i]);
      result[id] = { firmware: entry?.builds ?? 0, storedBytes: entry?.storedBytes ?? 0, tags: entry?.tags ?? [] };
    });
    return result;
  }
}
