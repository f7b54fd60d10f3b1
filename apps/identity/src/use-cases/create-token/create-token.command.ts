import { type AdminLevel, API_TOKEN_DEFAULT_DAYS, type Bundle, type CustomerRef, CreateTokenRequest, type Scope } from '@app/contracts';
import { contractCheck } from '@app/platform';

const checkToken = contractCheck(CreateTokenRequest, { where: 'body property' });

/** The person a token is created for and what they may hand out. */
export interface TokenCreator {
  readonly userId: string;
  readonly scopes: readonly Scope[];
  readonly admin: AdminLevel;
}

/** POST /tokens (and the operator CLI's issueToken, start-up's sandbox tokens); docs/api.md "API tokens". Checked with the contract's CreateTokenRequest. */
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
    const days = input.expiresInDays === null ? undefined : input.expiresInDays;
    const token = checkToken({ name: input.name, bundle: input.bundle, ...(days === undefined ? {} : { expires_in_days: days }) });
    return new CreateTokenCommand(input.customer, input.creator, token.name, token.bundle, token.expires_in_days ?? API_TOKEN_DEFAULT_DAYS, input.actor);
  }
}
