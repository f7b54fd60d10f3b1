import { CommonErrors, type CustomerRef, isUuid, type Principal } from '@app/contracts';

/** DELETE /tokens/{id}. */
export class RevokeTokenCommand {
  private constructor(
    readonly customer: CustomerRef,
    readonly principal: Principal,
    readonly tokenId: string,
    readonly actor: string,
  ) {}

  static create(input: { customer: CustomerRef; principal: Principal; tokenId: unknown; actor: string }): RevokeTokenCommand {
    if (!isUuid(input.tokenId)) throw CommonErrors.invalid_request({ detail: 'token id must be a UUID' });
    return new RevokeTokenCommand(input.customer, input.principal, input.tokenId.toLowerCase(), input.actor);
  }
}
