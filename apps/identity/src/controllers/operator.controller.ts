import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type CreatedToken, IdentityMessages, type MessageRequest } from '@app/contracts';
import { IssueTokenCommand } from '../use-cases/issue-token/issue-token.command.js';
import { IssueTokenUseCase } from '../use-cases/issue-token/issue-token.usecase.js';
import { OperatorEmailsUseCase } from '../use-cases/operator-emails/operator-emails.usecase.js';
import { UserEmailsUseCase } from '../use-cases/user-emails/user-emails.usecase.js';

type Issue = MessageRequest<typeof IdentityMessages.issueToken>;

/** Messages of trusted processes on the bus: the operator CLI, the admin app. */
@Controller()
export class OperatorController {
  constructor(
    @Inject(IssueTokenUseCase) private readonly issueToken: IssueTokenUseCase,
    @Inject(OperatorEmailsUseCase) private readonly operatorEmailsOf: OperatorEmailsUseCase,
    @Inject(UserEmailsUseCase) private readonly userEmailsOf: UserEmailsUseCase,
  ) {}

  @MessagePattern(IdentityMessages.issueToken.pattern)
  issue(@Payload() request: Issue): Promise<CreatedToken> {
    return this.issueToken.execute(IssueTokenCommand.create(request));
  }

  /** The audit lists' emails of their `user:<id>` actors. */
  @MessagePattern(IdentityMessages.userEmails.pattern)
  userEmails(@Payload() request: MessageRequest<typeof IdentityMessages.userEmails>): Promise<{ emails: Record<string, string> }> {
    return this.userEmailsOf.execute(request);
  }

  /** Who receives critical security events: the full administrators (enabled owners and editors of the operator customer). */
  @MessagePattern(IdentityMessages.operatorEmails.pattern)
  operatorEmails(): Promise<{ emails: string[] }> {
    return this.operatorEmailsOf.execute();
  }
}
