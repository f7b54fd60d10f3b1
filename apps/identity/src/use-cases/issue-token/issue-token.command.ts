import type { Bundle } from '@app/contracts';
import { API_TOKEN_DEFAULT_DAYS, API_TOKEN_MAX_DAYS } from '../../domain/limits.js';
import { validBundle, validDomain, validEmail, validInteger, validText } from '../shared/validate.js';

/** Operator CLI: a token for a member of a customer, without an HTTP session. */
export class IssueTokenCommand {
  private constructor(
    readonly customerDomain: string,
    readonly email: string,
    readonly name: string,
    readonly bundle: Bundle,
    readonly expiresInDays: number,
  ) {}

  static create(input: { customerDomain: unknown; email: unknown; name: unknown; bundle: unknown; expiresInDays?: unknown }): IssueTokenCommand {
    return new IssueTokenCommand(
      validDomain(input.customerDomain, 'customer domain'),
      validEmail(input.email),
      validText(input.name, 'name', 1, 100),
      validBundle(input.bundle),
      input.expiresInDays === undefined || input.expiresInDays === null
        ? API_TOKEN_DEFAULT_DAYS
        : validInteger(input.expiresInDays, 'expires_in_days', 1, API_TOKEN_MAX_DAYS),
    );
  }
}
