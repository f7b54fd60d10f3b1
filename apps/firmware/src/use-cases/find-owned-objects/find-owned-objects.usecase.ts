import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, MAX_OWNERSHIP_BATCH, type ObjectKeys, type OwnedObjectKeys } from '@app/contracts';
import { FirmwareStore } from '../../repositories/firmware.store.js';

/** For the staging clean-up (cross-tenant on purpose): which of the asked object keys a stored file of this app holds. */
@Injectable()
export class FindOwnedObjectsUseCase {
  constructor(@Inject(FirmwareStore) private readonly store: FirmwareStore) {}

  async execute(request: ObjectKeys): Promise<OwnedObjectKeys> {
    const keys = Array.isArray(request?.keys) ? request.keys.filter((k): k is string => typeof k === 'string') : [];
    if (keys.length > MAX_OWNERSHIP_BATCH) throw CommonErrors.ownership_batch_too_large();
    return { owned: await this.store.repos.builds.ownedObjectKeys(keys) };
  }
}
