import { type CustomerRef, isUuid, type Principal, ServiceError } from '@app/contracts';

/** DELETE /tokens/{id}. */
export class RevokeTokenCommand {
  private constructor(
    readonly customer: CustomerRef,
    readonly principal: Principal,
    readonly tokenId: string,
    readonly actor: string,
  ) {}

  static create(input: { customer: CustomerRef; principal: Principal; tokenId: unknown; actor: string }): RevokeTokenCommand {
    if (!isUuid(input.tokenId)) throw ServiceError.badRequest('token id must be a UUID');
    return new RevokeTokenCommand(input.customer, input.principal, input.tokenId.toLowerCase(), input.actor);
  }
}
