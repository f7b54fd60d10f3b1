import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type CreatedToken, IdentityMessages, type MessageRequest, requireTenant, type TokenRecord } from '@app/contracts';
import { CreateTokenUseCase } from '../use-cases/create-token/create-token.usecase.js';
import { ListTokensUseCase } from '../use-cases/list-tokens/list-tokens.usecase.js';
import { RevokeTokenCommand } from '../use-cases/revoke-token/revoke-token.command.js';
import { RevokeTokenUseCase } from '../use-cases/revoke-token/revoke-token.usecase.js';
import { requirePrincipal } from '../use-cases/shared/principal.js';

type Create = MessageRequest<typeof IdentityMessages.createToken>;
type List = MessageRequest<typeof IdentityMessages.listTokens>;
type Revoke = MessageRequest<typeof IdentityMessages.revokeToken>;

@Controller()
export class TokensController {
  constructor(
    @Inject(CreateTokenUseCase) private readonly createToken: CreateTokenUseCase,
    @Inject(ListTokensUseCase) private readonly listTokens: ListTokensUseCase,
    @Inject(RevokeTokenUseCase) private readonly revokeToken: RevokeTokenUseCase,
  ) {}

  @MessagePattern(IdentityMessages.createToken.pattern)
  create(@Payload() call: Create): Promise<CreatedToken> {
    return this.createToken.executeForRequest(call);
  }

  @MessagePattern(IdentityMessages.listTokens.pattern)
  list(@Payload() call: List): Promise<{ items: TokenRecord[] }> {
    return this.listTokens.execute(call.ctx);
  }

  @MessagePattern(IdentityMessages.revokeToken.pattern)
  revoke(@Payload() call: Revoke): Promise<void> {
    return this.revokeToken.execute(
      RevokeTokenCommand.create({
        customer: requireTenant(call.ctx).customer,
        principal: requirePrincipal(call.ctx),
        tokenId: call.params.id,
        actor: call.ctx.auditActor,
      }),
    );
  }
}
