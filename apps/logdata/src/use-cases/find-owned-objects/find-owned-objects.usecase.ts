import { Inject, Injectable } from '@nestjs/common';
import { MAX_OWNERSHIP_BATCH, type ObjectKeys, type OwnedObjectKeys, ServiceError } from '@app/contracts';
import { LogdataStore } from '../../repositories/logdata.store.js';

/** For the staging clean-up (cross-tenant on purpose): which of the asked object keys a stored file of this app holds. */
@Injectable()
export class FindOwnedObjectsUseCase {
  constructor(@Inject(LogdataStore) private readonly store: LogdataStore) {}

  async execute(request: ObjectKeys): Promise<OwnedObjectKeys> {
    const keys = Array.isArray(request?.keys) ? request.keys.filter((k): k is string => typeof k === 'string') : [];
    if (keys.length > MAX_OWNERSHIP_BATCH) throw ServiceError.badRequest(`at most ${MAX_OWNERSHIP_BATCH} keys per question`);
    return { owned: await this.store.repos.files.ownedObjectKeys(keys) };
  }
}
