import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, IdentityErrors, type MemberEntry } from '@app/contracts';
import { memberChangesLock } from '../../domain/locks.js';
import { toMemberEntry } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { InviteMemberCommand } from '../invite-member/invite-member.command.js';
import { InviteMemberUseCase } from '../invite-member/invite-member.usecase.js';
import type { AddMemberCommand } from './add-member.command.js';

/**
 * POST /members (docs/api.md "Members and administrators' operations"): creates the person if
 * new, adds the membership (409 if there) and mails the invitation after commit.
 */
@Injectable()
export class AddMemberUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(InviteMemberUseCase) private readonly invite: InviteMemberUseCase,
  ) {}

  async execute(command: AddMemberCommand): Promise<MemberEntry> {
    const customer = await this.store.repos.customers.findById(command.customer.id);
    if (!customer) throw CommonErrors.customer_not_found();
    const invitation = InviteMemberCommand.create({ customer, email: command.email, role: command.role, actor: command.actor });
    const { member, mail } = await this.store.transaction(
      async (repos) => {
        const { result, invitation: mail } = await this.invite.addWithin(repos, invitation);
        if (!result.added || !mail) throw IdentityErrors.member_exists();
        return { member: (await repos.memberships.findMember({ customerId: customer.id, email: invitation.email }))!, mail };
      },
      { lock: memberChangesLock(customer.id) },
    );
    await this.invite.deliver(invitation, mail);
    return toMemberEntry(member);
  }
}
