import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type CreatedToken, IdentityMessages, type MessageRequest } from '@app/contracts';
import { IssueTokenCommand } from '../usecases/issue-token/issue-token.command.js';
import { IssueTokenUseCase } from '../usecases/issue-token/issue-token.usecase.js';

type Issue = MessageRequest<typeof IdentityMessages.issueToken>;

/** The operator CLI's messages (sent only by trusted processes on the bus). */
@Controller()
export class OperatorController {
  constructor(@Inject(IssueTokenUseCase) private readonly issueToken: IssueTokenUseCase) {}

  @MessagePattern(IdentityMessages.issueToken.pattern)
  issue(@Payload() request: Issue): Promise<CreatedToken> {
    return this.issueToken.execute(IssueTokenCommand.create(request));
  }
}
