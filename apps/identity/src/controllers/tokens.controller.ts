import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type CreatedToken, IdentityMessages, type MessageRequest, type TokenRecord } from '@app/contracts';
import { CreateTokenUseCase } from '../use-cases/create-token/create-token.usecase.js';
import { ListTokensCommand } from '../use-cases/list-tokens/list-tokens.command.js';
import { ListTokensUseCase } from '../use-cases/list-tokens/list-tokens.usecase.js';
import { RevokeTokenCommand } from '../use-cases/revoke-token/revoke-token.command.js';
import { RevokeTokenUseCase } from '../use-cases/revoke-token/revoke-token.usecase.js';

type Req<K extends keyof typeof IdentityMessages> = MessageRequest<(typeof IdentityMessages)[K]>;

/** API tokens (docs/api.md "API tokens"); handlers are async so a refused command answers a rejected promise. */
@Controller()
export class TokensController {
  constructor(
    @Inject(CreateTokenUseCase) private readonly createToken: CreateTokenUseCase,
    @Inject(ListTokensUseCase) private readonly listTokens: ListTokensUseCase,
    @Inject(RevokeTokenUseCase) private readonly revokeToken: RevokeTokenUseCase,
  ) {}

  @MessagePattern(IdentityMessages.createToken.pattern)
  async create(@Payload() call: Req<'createToken'>): Promise<CreatedToken> {
    return this.createToken.executeForRequest(call);
  }

  @MessagePattern(IdentityMessages.listTokens.pattern)
  async list(@Payload() call: Req<'listTokens'>): Promise<{ items: TokenRecord[] }> {
    return this.listTokens.execute(ListTokensCommand.create({ ctx: call.ctx }));
  }

  @MessagePattern(IdentityMessages.revokeToken.pattern)
  async revoke(@Payload() call: Req<'revokeToken'>): Promise<void> {
    return this.revokeToken.execute(RevokeTokenCommand.create({ ctx: call.ctx, params: call.params }));
  }
}
