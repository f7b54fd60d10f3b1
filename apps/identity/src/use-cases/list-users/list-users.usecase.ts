import { Inject, Injectable } from '@nestjs/common';
import type { MemberView } from '@app/contracts';
import { toMemberView } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';

/** GET /admin/users: one entry per membership, every customer (no input: the gateway checked the admin level). */
@Injectable()
export class ListUsersUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(): Promise<{ items: MemberView[] }> {
    const rows = await this.store.repos.memberships.listAll();
    return { items: rows.map((row) => toMemberView(row, row.domain)) };
  }
}
