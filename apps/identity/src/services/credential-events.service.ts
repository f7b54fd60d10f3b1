import { Inject, Injectable } from '@nestjs/common';
import { type CredentialKind, IdentityEvents } from '@app/contracts';
import { MessageBus } from '@app/infra';

/**
 * Tells every gateway about credentials: `revoked` (a token or session stopped working: cached
 * as refused at once) and `changed` (what it may do changed: the cached status is dropped and
 * asked again). The gateways' cache bound (CREDENTIAL_CACHE_SECONDS <= 30) covers a lost event.
 */
@Injectable()
export class CredentialEvents {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  revoked(kind: CredentialKind, ids: readonly string[]): void {
    for (const id of ids) this.bus.emit(IdentityEvents.credentialRevoked, { kind, id });
  }

  changed(kind: CredentialKind, ids: readonly string[]): void {
    for (const id of ids) this.bus.emit(IdentityEvents.credentialChanged, { kind, id });
  }
}
