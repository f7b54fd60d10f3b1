import { Inject, Injectable } from '@nestjs/common';
import type { CredentialStatus, CredentialStatusRequest } from '@app/contracts';
import { sessionIsLive, tokenStatus } from '../../domain/lifecycle.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import { TokenUsageRecorder } from '../../services/token-usage.recorder.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INACTIVE: CredentialStatus = { active: false };

/**
 * The gateway asks whether a verified token or session still works. Tokens: not revoked, not
 * expired, user enabled, customer active (usage noted for last_used_at). Sessions: not
 * revoked, within 7 days and 12 idle hours, user enabled, customer active.
 */
@Injectable()
export class CredentialStatusUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(TokenUsageRecorder) private readonly usage: TokenUsageRecorder,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(request: CredentialStatusRequest): Promise<CredentialStatus> {
    if (typeof request?.id !== 'string' || !UUID.test(request.id)) return INACTIVE;
    const id = request.id.toLowerCase();
    const now = this.clock.now();
    if (request.kind === 'token') {
      const state = await this.store.repos.tokens.findCredentialState(id);
      if (!state) return INACTIVE;
      const active = tokenStatus(state, now) === 'active' && !state.userDisabled && state.customerStatus === 'active';
      if (active) this.usage.record(id, now);
      return { active };
    }
    if (request.kind === 'session') {
      const state = await this.store.repos.sessions.findCredentialState(id);
      if (!state) return INACTIVE;
      return { active: sessionIsLive(state, now) && !state.userDisabled && state.customerStatus === 'active' };
    }
    return INACTIVE;
  }
}
