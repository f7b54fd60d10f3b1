import { Inject, Injectable } from '@nestjs/common';
import type { MemberEntry } from '@app/contracts';
import { toMemberEntry } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import type { ListMembersCommand } from './list-members.command.js';

/** GET /members: the members of the customer the request acts on (an administrator's `customer=` included). */
@Injectable()
export class ListMembersUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(command: ListMembersCommand): Promise<{ items: MemberEntry[] }> {
    return { items: (await this.store.repos.memberships.listMembers(command.customerId)).map(toMemberEntry) };
  }
}
