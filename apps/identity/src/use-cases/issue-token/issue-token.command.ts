import { API_TOKEN_DEFAULT_DAYS, type Bundle, IssueTokenRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { normalizeEmail } from '../../domain/email.js';

const checkRequest = contractCheck(IssueTokenRequest, { where: 'property' });

/** Operator CLI (IdentityMessages.issueToken): a token for a member of a customer, without an HTTP session; the contract's IssueTokenRequest. */
export class IssueTokenCommand {
  private constructor(
    readonly customerDomain: string,
    readonly email: string,
    readonly name: string,
    readonly bundle: Bundle,
    readonly expiresInDays: number,
  ) {}

  static create(input: { customerDomain?: unknown; email?: unknown; name?: unknown; bundle?: unknown; expiresInDays?: unknown }): IssueTokenCommand {
    const request = checkRequest({
      ...input,
      customerDomain: typeof input.customerDomain === 'string' ? input.customerDomain.trim().toLowerCase() : input.customerDomain,
      email: typeof input.email === 'string' ? input.email.trim() : input.email,
      expiresInDays: input.expiresInDays ?? undefined,
    });
    return new IssueTokenCommand(
      request.customerDomain,
      normalizeEmail(request.email),
      request.name,
      request.bundle,
      request.expiresInDays ?? API_TOKEN_DEFAULT_DAYS,
    );
  }
}
