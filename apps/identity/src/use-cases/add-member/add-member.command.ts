import { type CustomerRef, InviteMemberRequest, type RequestContext, requireTenant, type Role } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { normalizeEmail } from '../../domain/email.js';

const checkBody = contractCheck(InviteMemberRequest, { where: 'body property' });

/** POST /members, validated when built with the contract's InviteMemberRequest. */
export class AddMemberCommand {
  private constructor(
    readonly customer: CustomerRef,
    readonly email: string,
    readonly role: Role,
    readonly actor: string,
  ) {}

  static create(input: { ctx: RequestContext; body: unknown }): AddMemberCommand {
    const ctx = requireTenant(input.ctx);
    const body = checkBody(input.body);
    return new AddMemberCommand(ctx.customer, normalizeEmail(body.email), body.role, ctx.auditActor);
  }
}
