import { CommonErrors, isUuid, USER_EMAILS_MAX } from '@app/contracts';

/**
 * IdentityMessages.userEmails: the user ids behind an audit page's `user:<id>` actors, distinct
 * and lower-cased. Ids that are not UUIDs cannot be users and are left out; more than
 * USER_EMAILS_MAX is refused.
 */
export class FindUserEmailsCommand {
  private constructor(readonly userIds: readonly string[]) {}

  static create(request: { ids?: unknown } | undefined): FindUserEmailsCommand {
    const ids = Array.isArray(request?.ids) ? [...new Set(request.ids.filter(isUuid))] : [];
    if (ids.length > USER_EMAILS_MAX) throw CommonErrors.invalid_request({ detail: `at most ${USER_EMAILS_MAX} user ids at once` });
    return new FindUserEmailsCommand(ids.map((id) => id.toLowerCase()));
  }
}
