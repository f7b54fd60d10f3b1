import { Inject, Injectable } from '@nestjs/common';
import { type CustomerId, IdentityErrors, type UpdatedUser } from '@app/contracts';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { CredentialEvents } from '../../services/credential-events.service.js';
import type { UpdateUserCommand } from './update-user.command.js';

/**
 * PATCH /admin/users/{email}: a user's state. Disabling ends all the person's sessions and
 * revokes every token they created, on every customer; enabling revives none of them. An
 * administrator cannot disable themselves (400).
 */
@Injectable()
export class UpdateUserUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(CredentialEvents) private readonly credentials: CredentialEvents,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: UpdateUserCommand): Promise<UpdatedUser> {
    const { principal, email, disabled } = command;
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
        actor: command.actor,
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
          actor: command.actor,
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
