import type { CustomerId, Role } from '@app/contracts';
import { validEmail, validRole } from '../shared/validate.js';

export interface InviteeCustomer {
  readonly id: CustomerId;
  readonly domain: string;
  readonly name: string;
}

/** Invite a person (by email) into a customer with a role. */
export class InviteMemberCommand {
  private constructor(
    readonly customer: InviteeCustomer,
    readonly email: string,
    readonly role: Role,
    /** Audit actor of whoever invites (`system` at start-up). */
    readonly actor: string,
  ) {}

  static create(input: { customer: InviteeCustomer; email: unknown; role: unknown; actor: string }): InviteMemberCommand {
    return new InviteMemberCommand(input.customer, validEmail(input.email), validRole(input.role), input.actor);
  }
}
