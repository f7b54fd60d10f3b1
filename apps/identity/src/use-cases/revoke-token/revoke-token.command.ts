import { CommonErrors, type CustomerRef, isUuid, type Principal, type RequestContext, requireTenant, TokenIdParams } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { requirePrincipal } from '../../domain/access.js';

const checkParams = contractCheck(TokenIdParams, { where: 'path parameter' });
/** The uuid format also takes `urn:uuid:` forms, which no token id has: refused with the same rule. */
const TOKEN_ID_RULE = TokenIdParams.properties.id['x-error'] as string;

/** DELETE /tokens/{id}, validated when built with the contract's TokenIdParams. */
export class RevokeTokenCommand {
  private constructor(
    readonly customer: CustomerRef,
    readonly principal: Principal,
    readonly tokenId: string,
    readonly actor: string,
  ) {}

  static create(input: { ctx: RequestContext; params: unknown }): RevokeTokenCommand {
    const ctx = requireTenant(input.ctx);
    const { id } = checkParams(input.params);
    if (!isUuid(id)) throw CommonErrors.invalid_request({ detail: TOKEN_ID_RULE });
    return new RevokeTokenCommand(ctx.customer, requirePrincipal(ctx), id.toLowerCase(), ctx.auditActor);
  }
}
