import { Inject, Injectable } from '@nestjs/common';
import { IdentityEvents } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';

export type SessionEndReason = 'logout' | 'refresh_reuse' | 'member_removed' | 'user_disabled' | 'customer_suspended';

/**
 * Ends a console session and tells every gateway (credentialRevoked), so its access cookie
 * stops working within the cache bound: logout and refresh-token reuse come through here;
 * member removal, user disabling and customer suspension end many sessions at once with
 * SessionRepository.revokeOpen and announce them the same way (CredentialEvents).
 */
@Injectable()
export class EndSessionUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** true when this call ended it (false: unknown or already ended). */
  async execute(sessionId: string, reason: SessionEndReason): Promise<boolean> {
    const ended = await this.store.repos.sessions.revoke({ id: sessionId, at: this.clock.now(), reason });
    if (ended) this.bus.emit(IdentityEvents.credentialRevoked, { kind: 'session', id: sessionId });
    return ended;
  }
}
