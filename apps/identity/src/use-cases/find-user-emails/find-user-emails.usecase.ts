import { Inject, Injectable } from '@nestjs/common';
import { IdentityStore } from '../../repositories/identity.store.js';
import type { FindUserEmailsCommand } from './find-user-emails.command.js';

/** IdentityMessages.userEmails: the emails behind the `user:<id>` actors of an audit page (the admin app asks once per page). */
@Injectable()
export class FindUserEmailsUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(command: FindUserEmailsCommand): Promise<{ emails: Record<string, string> }> {
    return { emails: Object.fromEntries(await this.store.repos.users.emailsOf([...command.userIds])) };
  }
}
