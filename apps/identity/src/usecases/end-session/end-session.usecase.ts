import { Inject, Injectable } from '@nestjs/common';
import { IdentityEvents } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';

export type SessionEndReason = 'logout' | 'refresh_reuse' | 'member_removed' | 'user_disabled' | 'customer_suspended';

/**
 * Ends a console session and tells every gateway (credentialRevoked), so its access cookie
 * stops working within the cache bound. The one way sessions end: logout, refresh-token
 * reuse, member removal and user disabling (next issue) all come through here.
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
