import { Inject, Injectable } from '@nestjs/common';
import type { PeopleList } from '@app/contracts';
import { IdentityStore } from '../../repositories/identity.store.js';
import type { NamePeopleCommand } from './name-people.command.js';

/**
 * GET /people: the emails behind `user:<id>` actors, so lists (tokens' created_by, builds'
 * uploaded_by…) show people as their email. A caller learns only people they may already see:
 * members of the customer acted on, or anyone for administrators. Ids of others and of
 * nobody are left out alike, so the answer tells nothing about who exists elsewhere.
 */
@Injectable()
export class NamePeopleUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(command: NamePeopleCommand): Promise<PeopleList> {
    const ids = [...command.users.keys()];
    const emails = command.anyPerson
      ? await this.store.repos.users.emailsOf(ids)
      : await this.store.repos.memberships.memberEmailsOf({ customerId: command.customerId, userIds: ids });
    return { items: [...command.users].filter(([id]) => emails.has(id)).map(([id, asked]) => ({ id: asked, email: emails.get(id)! })) };
  }
}
