import { Inject, Injectable } from '@nestjs/common';
import { IdentityErrors, type MemberEntry } from '@app/contracts';
import { memberChangesLock } from '../../domain/locks.js';
import { toMemberEntry } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { CredentialEvents } from '../../services/credential-events.service.js';
import type { ChangeMemberRoleCommand } from './change-member-role.command.js';

/**
 * PATCH /members/{email}: 409 when it would demote the last owner; gateways reload the person's
 * credentials (their scopes follow within the cache bound). A change writes an audit entry.
 */
@Injectable()
export class ChangeMemberRoleUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(CredentialEvents) private readonly credentials: CredentialEvents,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: ChangeMemberRoleCommand): Promise<MemberEntry> {
    const { customer, email, role } = command;
    const { before, after } = await this.store.transaction(
      async (repos) => {
        const member = await repos.memberships.findMember({ customerId: customer.id, email });
        if (!member) throw IdentityErrors.member_not_found();
        if (member.role === role) return { before: member, after: member };
        if (member.role === 'owner' && (await repos.memberships.countOwners(customer.id)) <= 1) throw IdentityErrors.last_owner_demote();
        await repos.memberships.updateRole({ customerId: customer.id, userId: member.userId, role });
        return { before: member, after: { ...member, role } };
      },
      { lock: memberChangesLock(customer.id) },
    );
    if (before.role !== after.role) {
      await this.credentials.personChanged(before.userId, this.clock.now());
      await this.audit.record({
        actor: command.actor,
        domain: customer.domain,
        action: 'member.update',
        targetType: 'member',
        targetId: email,
        before: { email, role: before.role },
        after: { email, role: after.role },
      });
    }
    return toMemberEntry(after);
  }
}
