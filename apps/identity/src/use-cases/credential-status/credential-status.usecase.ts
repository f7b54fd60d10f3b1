import { Inject, Injectable } from '@nestjs/common';
import { type CredentialStatus, type CredentialStatusRequest, isUuid, scopeAllows } from '@app/contracts';
import { personScopes } from '../../domain/access.js';
import { sessionIsLive, tokenStatus } from '../../domain/lifecycle.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Administrators } from '../../services/administrators.service.js';
import { Clock } from '../../services/clock.js';
import { SessionAccess } from '../../services/session-access.service.js';
import { TokenUsageRecorder } from '../../services/token-usage.recorder.js';

const INACTIVE: CredentialStatus = { active: false };

/**
 * The gateway asks whether a verified token or session still works, and what it may do now.
 *
 * Tokens: not revoked, not expired, user enabled, customer active (usage noted for
 * last_used_at); its scopes narrowed to what its creator holds on its customer now (a token
 * never has more scopes than its person: a demoted creator's tokens shrink with them), `admin`
 * only while the creator is a full administrator.
 *
 * Sessions: not revoked, within 7 days and 12 idle hours, user enabled, customer active, still a
 * member there; the customer the session is on now and the person's scopes there.
 */
@Injectable()
export class CredentialStatusUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(TokenUsageRecorder) private readonly usage: TokenUsageRecorder,
    @Inject(SessionAccess) private readonly access: SessionAccess,
    @Inject(Administrators) private readonly administrators: Administrators,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(request: CredentialStatusRequest): Promise<CredentialStatus> {
    if (!isUuid(request?.id)) return INACTIVE;
    const id = request.id.toLowerCase();
    const now = this.clock.now();
    const repos = this.store.repos;
    if (request.kind === 'token') {
      const state = await repos.tokens.findCredentialState(id);
      if (!state) return INACTIVE;
      if (tokenStatus(state, now) !== 'active' || state.userDisabled || state.customerStatus !== 'active') return INACTIVE;
      this.usage.record(id, now);
      const standing = await this.access.standing(repos, state.createdBy, state.customerId);
      const held = personScopes(standing.role, standing.admin);
      const admin =
        state.scopes.includes('admin') && standing.admin === 'full' && this.administrators.isOperator({ domain: state.customerDomain }) ? 'full' : '';
      return {
        active: true,
        customerId: state.customerId,
        scopes: state.scopes.filter((scope) => scopeAllows(held, scope) && (scope !== 'admin' || admin === 'full')),
        admin,
      };
    }
    if (request.kind === 'session') {
      const state = await repos.sessions.findCredentialState(id);
      if (!state) return INACTIVE;
      if (!sessionIsLive(state, now) || state.userDisabled || state.customerStatus !== 'active') return INACTIVE;
      const standing = await this.access.standing(repos, state.userId, state.customerId);
      if (!standing.role) return INACTIVE;
      return { active: true, customerId: state.customerId, scopes: standing.scopes, admin: standing.admin };
    }
    return INACTIVE;
  }
}
