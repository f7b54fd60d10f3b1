import { type CustomerRef, type RequestContext, requireTenant, type Role, UpdateMemberRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { emailOf } from '../../domain/email.js';

const checkBody = contractCheck(UpdateMemberRequest, { where: 'body property' });

/** PATCH /members/{email}, validated when built (the contract's Email and UpdateMemberRequest). */
export class ChangeMemberRoleCommand {
  private constructor(
    readonly customer: CustomerRef,
    readonly email: string,
    readonly role: Role,
    readonly actor: string,
  ) {}

  static create(input: { ctx: RequestContext; email: unknown; body: unknown }): ChangeMemberRoleCommand {
    const ctx = requireTenant(input.ctx);
    const email = emailOf(input.email);
    return new ChangeMemberRoleCommand(ctx.customer, email, checkBody(input.body).role, ctx.auditActor);
  }
}
