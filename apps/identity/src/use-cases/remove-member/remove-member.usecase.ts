import { Inject, Injectable } from '@nestjs/common';
import { IdentityErrors } from '@app/contracts';
import { memberChangesLock } from '../../domain/locks.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Administrators } from '../../services/administrators.service.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { CredentialEvents } from '../../services/credential-events.service.js';
import type { RemoveMemberCommand } from './remove-member.command.js';

/**
 * DELETE /members/{email}: 409 for the last owner; the person's sessions on this customer end
 * and every token they created for it is revoked (effective within 30 s, like any revocation).
 * Audit entries for the removal and each revoked token.
 */
@Injectable()
export class RemoveMemberUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Administrators) private readonly administrators: Administrators,
    @Inject(CredentialEvents) private readonly credentials: CredentialEvents,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: RemoveMemberCommand): Promise<void> {
    const { customer, email } = command;
    const now = this.clock.now();
    const { member, sessions, tokens } = await this.store.transaction(
      async (repos) => {
        const member = await repos.memberships.findMember({ customerId: customer.id, email });
        if (!member) throw IdentityErrors.member_not_found();
        if (member.role === 'owner' && (await repos.memberships.countOwners(customer.id)) <= 1) throw IdentityErrors.last_owner_remove();
        await repos.memberships.remove({ customerId: customer.id, userId: member.userId });
        const sessions = await repos.sessions.revokeOpen({ userId: member.userId, customerId: customer.id, at: now, reason: 'member_removed' });
        const tokens = await repos.tokens.revokeCreatedBy({ userId: member.userId, customerId: customer.id, at: now });
        return { member, sessions, tokens };
      },
      { lock: memberChangesLock(customer.id) },
    );
    this.credentials.revoked('session', sessions);
    this.credentials.revoked(
      'token',
      tokens.map((t) => t.id),
    );
    // Removal from the operator customer changes the person's administrator level everywhere.
    if (this.administrators.isOperator(customer)) await this.credentials.personChanged(member.userId, this.clock.now());
    await this.audit.record({
      actor: command.actor,
      domain: customer.domain,
      action: 'member.remove',
      targetType: 'member',
      targetId: email,
      before: { email, role: member.role },
      after: null,
    });
    for (const token of tokens) {
      await this.audit.record({
        actor: command.actor,
        domain: customer.domain,
        action: 'token.revoke',
        targetType: 'token',
        targetId: token.id,
        before: { revoked_at: null },
        after: { revoked_at: now.toISOString(), reason: 'member_removed' },
      });
    }
  }
}
