import type { AdminLevel, Bundle, CustomerRef, Scope } from '@app/contracts';
import { API_TOKEN_DEFAULT_DAYS, API_TOKEN_MAX_DAYS } from '../../domain/limits.js';
import { validBundle, validInteger, validText } from '../shared/validate.js';

/** The person a token is created for and what they may hand out. */
export interface TokenCreator {
  readonly userId: string;
  readonly scopes: readonly Scope[];
  readonly admin: AdminLevel;
}

/** POST /tokens (and the operator CLI's issueToken); docs/api.md "API tokens". */
export class CreateTokenCommand {
  private constructor(
    readonly customer: CustomerRef,
    readonly creator: TokenCreator,
    readonly name: string,
    readonly bundle: Bundle,
    readonly expiresInDays: number,
    /** Audit actor. */
    readonly actor: string,
  ) {}

  static create(input: {
    customer: CustomerRef;
    creator: TokenCreator;
    name: unknown;
    bundle: unknown;
    expiresInDays?: unknown;
    actor: string;
  }): CreateTokenCommand {
    const days =
      input.expiresInDays === undefined || input.expiresInDays === null
        ? API_TOKEN_DEFAULT_DAYS
        : validInteger(input.expiresInDays, 'expires_in_days', 1, API_TOKEN_MAX_DAYS);
    return new CreateTokenCommand(input.customer, input.creator, validText(input.name, 'name', 1, 100), validBundle(input.bundle), days, input.actor);
  }
}
