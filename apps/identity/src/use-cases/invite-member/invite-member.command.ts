import { type CustomerId, InviteMemberRequest, type Role } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { emailOf } from '../../domain/email.js';

const checkRole = contractCheck(InviteMemberRequest.properties.role);

export interface InviteeCustomer {
  readonly id: CustomerId;
  readonly domain: string;
  readonly name: string;
}

/** Invite a person (by email) into a customer with a role; the email and role by the contract's InviteMemberRequest rules. */
export class InviteMemberCommand {
  private constructor(
    readonly customer: InviteeCustomer,
    readonly email: string,
    readonly role: Role,
    /** Audit actor of whoever invites (`system` at start-up). */
    readonly actor: string,
  ) {}

  static create(input: { customer: InviteeCustomer; email: unknown; role: unknown; actor: string }): InviteMemberCommand {
    return new InviteMemberCommand(input.customer, emailOf(input.email), checkRole(input.role), input.actor);
  }
}
