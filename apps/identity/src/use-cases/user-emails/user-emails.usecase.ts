import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, isUuid, USER_EMAILS_MAX } from '@app/contracts';
import { IdentityStore } from '../../repositories/identity.store.js';

/**
 * IdentityMessages.userEmails: the emails behind the `user:<id>` actors of an audit page (the
 * admin app asks once per page). Ids that are not UUIDs cannot be users and are left out.
 */
@Injectable()
export class UserEmailsUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(request: { ids?: unknown }): Promise<{ emails: Record<string, string> }> {
    const ids = Array.isArray(request?.ids) ? [...new Set(request.ids.filter(isUuid))] : [];
    if (ids.length > USER_EMAILS_MAX) throw CommonErrors.invalid_request({ detail: `at most ${USER_EMAILS_MAX} user ids at once` });
    return { emails: Object.fromEntries(await this.store.repos.users.emailsOf(ids.map((id) => id.toLowerCase()))) };
  }
}
