import { type CustomerRef, type RequestContext, requireTenant } from '@app/contracts';
import { emailOf } from '../../domain/email.js';

/** DELETE /members/{email}, validated when built (the contract's Email). */
export class RemoveMemberCommand {
  private constructor(
    readonly customer: CustomerRef,
    readonly email: string,
    readonly actor: string,
  ) {}

  static create(input: { ctx: RequestContext; email: unknown }): RemoveMemberCommand {
    const ctx = requireTenant(input.ctx);
    return new RemoveMemberCommand(ctx.customer, emailOf(input.email), ctx.auditActor);
  }
}
