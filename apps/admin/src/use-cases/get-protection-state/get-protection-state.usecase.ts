import { Inject, Injectable } from '@nestjs/common';
import type { ProtectionState } from '@app/contracts';
import { ProtectionChanges } from '../../protection/protection-changes.js';
import { AdminStore } from '../../repositories/admin.store.js';

/** What the gateways enforce (their re-read every second); nothing but the revision when theirs is current. */
@Injectable()
export class GetProtectionState {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(ProtectionChanges) private readonly changes: ProtectionChanges,
  ) {}

  async execute(knownRevision: string | null): Promise<ProtectionState> {
    if (knownRevision !== null && (await this.adminStore.repos.protection.revision()) === knownRevision) return { changed: false, revision: knownRevision };
    return this.changes.enforced();
  }
}
