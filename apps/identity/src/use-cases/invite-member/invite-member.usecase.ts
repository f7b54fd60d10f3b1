import { Inject, Injectable } from '@nestjs/common';
import { IdentityStore, type IdentityRepositories } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { IdentityMail, type InvitationMail } from '../../services/identity-mail.service.js';
import type { InviteMemberCommand } from './invite-member.command.js';

export interface InvitationResult {
  readonly added: boolean;
  readonly userId: string;
}

/**
 * Creates the user when the address is new and the membership when absent, then mails an
 * invitation. Other flows that invite inside their own transaction use `addWithin` and send
 * the returned mail after commit with `deliver` (a mail is never sent for a rolled-back row).
 */
@Injectable()
export class InviteMemberUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(IdentityMail) private readonly mail: IdentityMail,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: InviteMemberCommand): Promise<InvitationResult> {
    const { result, invitation } = await this.store.transaction((repos) => this.addWithin(repos, command));
    if (invitation) await this.deliver(command, invitation);
    return result;
  }

  async addWithin(repos: IdentityRepositories, command: InviteMemberCommand): Promise<{ result: InvitationResult; invitation: InvitationMail | null }> {
    const at = this.clock.now();
    const { user } = await repos.users.ensure(command.email, at);
    const added = await repos.memberships.addIfAbsent({ customerId: command.customer.id, userId: user.id, role: command.role, at });
    const invitation: InvitationMail | null = added
      ? {
          to: user.email,
          customerId: command.customer.id,
          customerDomain: command.customer.domain,
          customerName: command.customer.name,
          role: command.role,
          userId: user.id,
        }
      : null;
    return { result: { added, userId: user.id }, invitation };
  }

  async deliver(command: InviteMemberCommand, invitation: InvitationMail): Promise<void> {
    await this.mail.sendInvitation(invitation);
    await this.audit.record({
      actor: command.actor,
      domain: command.customer.domain,
      action: 'member.invite',
      targetType: 'member',
      targetId: invitation.to,
      before: null,
      after: { email: invitation.to, role: invitation.role },
    });
  }
}
