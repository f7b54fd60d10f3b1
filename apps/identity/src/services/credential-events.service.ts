import { Inject, Injectable } from '@nestjs/common';
import { type CredentialKind, IdentityEvents } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { IdentityStore } from '../repositories/identity.store.js';

/**
 * Tells every gateway about credentials: `revoked` (a token or session stopped working: cached
 * as refused at once) and `changed` (what it may do changed: the cached status is dropped and
 * asked again). The gateways' cache bound (CREDENTIAL_CACHE_SECONDS <= 30) covers a lost event.
 */
@Injectable()
export class CredentialEvents {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(IdentityStore) private readonly store: IdentityStore,
  ) {}

  revoked(kind: CredentialKind, ids: readonly string[]): void {
    for (const id of ids) this.bus.emit(IdentityEvents.credentialRevoked, { kind, id });
  }

  changed(kind: CredentialKind, ids: readonly string[]): void {
    for (const id of ids) this.bus.emit(IdentityEvents.credentialChanged, { kind, id });
  }

  /** A person's role or administrator level changed: `changed` for their open sessions and working tokens. */
  async personChanged(userId: string, now: Date): Promise<void> {
    const repos = this.store.repos;
    const [sessions, tokens] = await Promise.all([repos.sessions.openIds({ userId, now }), repos.tokens.activeIdsCreatedBy(userId, now)]);
    this.changed('session', sessions);
    this.changed('token', tokens);
  }
}
