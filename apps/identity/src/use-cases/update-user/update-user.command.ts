import { type Principal, type RequestContext, UpdateUserRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { emailOf } from '../../domain/email.js';
import { requirePrincipal } from '../../domain/access.js';

const checkBody = contractCheck(UpdateUserRequest, { where: 'body property' });

/** PATCH /admin/users/{email}, validated when built (the contract's Email and UpdateUserRequest). */
export class UpdateUserCommand {
  private constructor(
    readonly principal: Principal,
    readonly email: string,
    readonly disabled: boolean,
    readonly actor: string,
  ) {}

  static create(input: { ctx: RequestContext; email: unknown; body: unknown; actor: string }): UpdateUserCommand {
    const principal = requirePrincipal(input.ctx);
    const email = emailOf(input.email);
    return new UpdateUserCommand(principal, email, checkBody(input.body ?? {}).disabled, input.actor);
  }
}
