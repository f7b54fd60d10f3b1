import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type CreatedToken, IdentityMessages, type MessageRequest } from '@app/contracts';
import { FindOperatorEmailsUseCase } from '../use-cases/find-operator-emails/find-operator-emails.usecase.js';
import { FindOwnerEmailsUseCase } from '../use-cases/find-owner-emails/find-owner-emails.usecase.js';
import { FindUserEmailsCommand } from '../use-cases/find-user-emails/find-user-emails.command.js';
import { FindUserEmailsUseCase } from '../use-cases/find-user-emails/find-user-emails.usecase.js';
import { IssueTokenCommand } from '../use-cases/issue-token/issue-token.command.js';
import { IssueTokenUseCase } from '../use-cases/issue-token/issue-token.usecase.js';

type Req<K extends keyof typeof IdentityMessages> = MessageRequest<(typeof IdentityMessages)[K]>;

/** Messages of trusted processes on the bus: the operator CLI, the admin app. */
@Controller()
export class OperatorController {
  constructor(
    @Inject(IssueTokenUseCase) private readonly issueToken: IssueTokenUseCase,
    @Inject(FindOperatorEmailsUseCase) private readonly findOperatorEmails: FindOperatorEmailsUseCase,
    @Inject(FindUserEmailsUseCase) private readonly findUserEmails: FindUserEmailsUseCase,
    @Inject(FindOwnerEmailsUseCase) private readonly findOwnerEmails: FindOwnerEmailsUseCase,
  ) {}

  @MessagePattern(IdentityMessages.issueToken.pattern)
  async issue(@Payload() request: Req<'issueToken'>): Promise<CreatedToken> {
    return this.issueToken.execute(IssueTokenCommand.create(request));
  }

  /** The audit lists' emails of their `user:<id>` actors. */
  @MessagePattern(IdentityMessages.userEmails.pattern)
  async userEmails(@Payload() request: Req<'userEmails'>): Promise<{ emails: Record<string, string> }> {
    return this.findUserEmails.execute(FindUserEmailsCommand.create(request));
  }

  /** Who receives critical security events: the full administrators (enabled owners and editors of the operator customer). */
  @MessagePattern(IdentityMessages.operatorEmails.pattern)
  operatorEmails(): Promise<{ emails: string[] }> {
    return this.findOperatorEmails.execute();
  }

  /** Whom the firmware app mails when a rollout halts: the customer's enabled owners, and its domain. */
  @MessagePattern(IdentityMessages.ownerEmails.pattern)
  ownerEmails(@Payload() request: Req<'ownerEmails'>): Promise<{ domain: string | null; emails: string[] }> {
    return this.findOwnerEmails.execute(request);
  }
}
