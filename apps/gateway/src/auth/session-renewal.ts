import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { IdentityMessages, type RefreshedSession } from '@app/contracts';
import { MessageBus } from '@app/infra';

export interface RenewalClient {
  readonly ip: string;
  readonly userAgent: string;
  readonly requestId: string;
}

/**
 * The access cookie lasts 15 minutes and is renewed automatically (docs/api.md "Sessions and CSRF").
 * A request whose access cookie is missing, expired or stale but that carries a refresh cookie
 * is renewed here: identity rotates the refresh token (IdentityMessages.renewSession) and the
 * gateway sets the new cookies on the response and goes on with the renewed session.
 *
 * Requests that arrive with the same refresh token while its renewal is in flight share that one
 * renewal: they are one presentation of the live token, not replays. Once it is answered the
 * token is rotated, and presenting it again reaches identity as reuse, which ends the session
 * (no window in which a replay is answered: docs/api.md "Sessions and CSRF"). The console
 * therefore sends one request at a time.
 */
@Injectable()
export class SessionRenewal {
  private readonly inFlight = new Map<string, Promise<RefreshedSession>>();

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  renew(refreshToken: string, client: RenewalClient): Promise<RefreshedSession> {
    const key = createHash('sha256').update(refreshToken).digest('base64url');
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const renewal = this.bus
      .send(IdentityMessages.renewSession, { refreshToken, ip: client.ip, userAgent: client.userAgent, requestId: client.requestId })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, renewal);
    return renewal;
  }
}
