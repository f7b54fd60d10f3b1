import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type CustomerId, IdentityErrors, type MemberEntry, type RequestContext, requireTenant, type Role } from '@app/contracts';
import type { CustomerMember } from '../../repositories/membership.repository.js';
import { IdentityStore, type IdentityRepositories } from '../../repositories/identity.store.js';
import { Administrators } from '../../services/administrators.service.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { CredentialEvents } from '../../services/credential-events.service.js';
import { InviteMemberCommand } from '../invite-member/invite-member.command.js';
import { InviteMemberUseCase } from '../invite-member/invite-member.usecase.js';
import { validEmail, validRole } from '../shared/validate.js';

export function toMemberEntry(member: CustomerMember): MemberEntry {
  return {
    email: member.email,
    role: member.role,
    disabled: member.userDisabled,
    created_at: member.createdAt.toISOString(),
    last_login_at: member.lastLoginAt?.toISOString() ?? null,
  };
}

/**
 * The member API (docs/api.md "Members and administrators' operations") on the customer the request
 * acts on (an administrator's `customer=` included). Changes of one customer's members take turns
 * on an advisory lock, so two owners demoting each other at once cannot leave it without an owner.
 *
 * - invite: creates the person if new, adds the membership (409 if there), mails the invitation;
 * - role change: 409 when it would demote the last owner; gateways reload the person's
 *   credentials (their scopes follow within the cache bound);
 * - removal: 409 for the last owner; the person's sessions on this customer end and every token
 *   they created for it is revoked (effective within 30 s, like any revocation).
 * Each change writes an audit entry with before and after.
 */
@Injectable()
export class MembersUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(InviteMemberUseCase) private readonly invite: InviteMemberUseCase,
    @Inject(Administrators) private readonly administrators: Administrators,
    @Inject(CredentialEvents) private readonly credentials: CredentialEvents,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async list(ctx: RequestContext): Promise<{ items: MemberEntry[] }> {
    const { customer } = requireTenant(ctx);
    return { items: (await this.store.repos.memberships.listMembers(customer.id)).map(toMemberEntry) };
  }

  async add(ctx: RequestContext, input: { email: unknown; role: unknown }): Promise<MemberEntry> {
    const { customer: ref } = requireTenant(ctx);
    const customer = await this.store.repos.customers.findById(ref.id);
    if (!customer) throw CommonErrors.customer_not_found();
    const command = InviteMemberCommand.create({ customer, email: input.email, role: input.role, actor: ctx.auditActor });
    const { member, mail } = await this.store.transaction(
      async (repos) => {
        const { result, invitation } = await this.invite.addWithin(repos, command);
        if (!result.added || !invitation) throw IdentityErrors.member_exists();
        return { member: (await repos.memberships.findMember(customer.id, command.email))!, mail: invitation };
      },
      { lock: memberLock(customer.id) },
    );
    await this.invite.deliver(command, mail);
    return toMemberEntry(member);
  }

  async changeRole(ctx: RequestContext, emailInput: unknown, roleInput: unknown): Promise<MemberEntry> {
    const { customer } = requireTenant(ctx);
    const email = validEmail(emailInput);
    const role = validRole(roleInput);
    const { before, after } = await this.store.transaction(
      async (repos) => {
        const member = await this.findMember(repos, customer.id, email);
        if (member.role === role) return { before: member, after: member };
        if (member.role === 'owner' && (await repos.memberships.countOwners(customer.id)) <= 1) throw IdentityErrors.last_owner_demote();
        await repos.memberships.updateRole({ customerId: customer.id, userId: member.userId, role });
        return { before: member, after: { ...member, role } };
      },
      { lock: memberLock(customer.id) },
    );
    if (before.role !== after.role) {
      await this.announceChanged(before.userId);
      await this.audit.record({
        actor: ctx.auditActor,
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

  async remove(ctx: RequestContext, emailInput: unknown): Promise<void> {
    const { customer } = requireTenant(ctx);
    const email = validEmail(emailInput);
    const now = this.clock.now();
    const { member, sessions, tokens } = await this.store.transaction(
      async (repos) => {
        const member = await this.findMember(repos, customer.id, email);
        if (member.role === 'owner' && (await repos.memberships.countOwners(customer.id)) <= 1) throw IdentityErrors.last_owner_remove();
        await repos.memberships.remove({ customerId: customer.id, userId: member.userId });
        const sessions = await repos.sessions.revokeOpen({ userId: member.userId, customerId: customer.id, at: now, reason: 'member_removed' });
        const tokens = await repos.tokens.revokeCreatedBy({ userId: member.userId, customerId: customer.id, at: now });
        return { member, sessions, tokens };
      },
      { lock: memberLock(customer.id) },
    );
    this.credentials.revoked('session', sessions);
    this.credentials.revoked(
      'token',
      tokens.map((t) => t.id),
    );
    // Removal from the operator customer changes the person's administrator level everywhere.
    if (this.administrators.isOperator(customer)) await this.announceChanged(member.userId);
    await this.audit.record({
      actor: ctx.auditActor,
      domain: customer.domain,
      action: 'member.remove',
      targetType: 'member',
      targetId: email,
      before: { email, role: member.role },
      after: null,
    });
    for (const token of tokens) {
      await this.audit.record({
        actor: ctx.auditActor,
        domain: customer.domain,
        action: 'token.revoke',
        targetType: 'token',
        targetId: token.id,
        before: { revoked_at: null },
        after: { revoked_at: now.toISOString(), reason: 'member_removed' },
      });
    }
  }

  private async findMember(repos: IdentityRepositories, customerId: CustomerId, email: string): Promise<CustomerMember & { role: Role }> {
    const member = await repos.memberships.findMember(customerId, email);
    if (!member) throw IdentityErrors.member_not_found();
    return member;
  }

  /** The person's open sessions and working tokens: gateways drop what they cached about them. */
  private async announceChanged(userId: string): Promise<void> {
    const now = this.clock.now();
    const repos = this.store.repos;
    const [sessions, tokens] = await Promise.all([repos.sessions.openIds({ userId, now }), repos.tokens.activeIdsCreatedBy(userId, now)]);
    this.credentials.changed('session', sessions);
    this.credentials.changed('token', tokens);
  }
}

function memberLock(customerId: string): string {
  return `identity.members:${customerId}`;
}
