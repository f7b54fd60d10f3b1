import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type CustomerId, IdentityErrors, type MemberView, type RequestContext, type UpdatedUser } from '@app/contracts';
import { toMemberView } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { CredentialEvents } from '../../services/credential-events.service.js';
import { requirePrincipal } from '../shared/principal.js';
import { validEmail } from '../shared/validate.js';

/**
 * GET /admin/users (one entry per membership) and PATCH /admin/users/{email} (a user's states:
 * disabling ends all the person's sessions and revokes every token they created, on every
 * customer; enabling revives none of them). An administrator cannot disable themselves (400).
 */
@Injectable()
export class AdminUsersUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(CredentialEvents) private readonly credentials: CredentialEvents,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async list(): Promise<{ items: MemberView[] }> {
    const rows = await this.store.repos.memberships.listAll();
    return { items: rows.map((row) => toMemberView(row, row.domain)) };
  }

  async setDisabled(ctx: RequestContext, emailInput: unknown, disabled: unknown): Promise<UpdatedUser> {
    const principal = requirePrincipal(ctx);
    const email = validEmail(emailInput);
    if (typeof disabled !== 'boolean') throw CommonErrors.invalid_request({ detail: 'disabled must be true or false' });
    const now = this.clock.now();
    const result = await this.store.transaction(async (repos) => {
      const user = await repos.users.findByEmail(email);
      if (!user) throw IdentityErrors.user_not_found();
      if (disabled && user.id === principal.userId) throw IdentityErrors.user_self_disable();
      if (user.disabled === disabled) return { user, changed: false, sessions: [] as string[], tokens: [] as Array<{ id: string; customerId: CustomerId }> };
      await repos.users.setDisabled(user.id, disabled);
      if (!disabled) return { user, changed: true, sessions: [] as string[], tokens: [] as Array<{ id: string; customerId: CustomerId }> };
      const sessions = await repos.sessions.revokeOpen({ userId: user.id, at: now, reason: 'user_disabled' });
      const tokens = await repos.tokens.revokeCreatedBy({ userId: user.id, at: now });
      return { user, changed: true, sessions, tokens };
    });
    this.credentials.revoked('session', result.sessions);
    this.credentials.revoked(
      'token',
      result.tokens.map((t) => t.id),
    );
    if (result.changed) {
      await this.audit.record({
        actor: ctx.auditActor,
        domain: null,
        action: 'user.update',
        targetType: 'user',
        targetId: email,
        before: { email, disabled: !disabled },
        after: { email, disabled, sessions_ended: result.sessions.length, tokens_revoked: result.tokens.length },
      });
      const domains = new Map<string, string | null>();
      for (const id of new Set(result.tokens.map((t) => t.customerId))) domains.set(id, (await this.store.repos.customers.findById(id))?.domain ?? null);
      for (const token of result.tokens) {
        await this.audit.record({
          actor: ctx.auditActor,
          domain: domains.get(token.customerId) ?? null,
          action: 'token.revoke',
          targetType: 'token',
          targetId: token.id,
          before: { revoked_at: null },
          after: { revoked_at: now.toISOString(), reason: 'user_disabled' },
        });
      }
    }
    return { disabled, email };
  }
}
