import { type CustomerRef, type Principal, ServiceError } from '@app/contracts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** DELETE /tokens/{id}. */
export class RevokeTokenCommand {
  private constructor(
    readonly customer: CustomerRef,
    readonly principal: Principal,
    readonly tokenId: string,
    readonly actor: string,
  ) {}

  static create(input: { customer: CustomerRef; principal: Principal; tokenId: unknown; actor: string }): RevokeTokenCommand {
    if (typeof input.tokenId !== 'string' || !UUID.test(input.tokenId)) throw ServiceError.badRequest('token id must be a UUID');
    return new RevokeTokenCommand(input.customer, input.principal, input.tokenId.toLowerCase(), input.actor);
  }
}
