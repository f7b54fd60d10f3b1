import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { IdentityMessages, type RefreshedSession } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { TtlCache } from '@app/platform';

/** How long this gateway answers the same old refresh token with the same renewal (concurrent requests). */
const SHARE_MS = 3_000;

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
 * A browser sends several requests with the same cookies at once. Within one gateway they share
 * one renewal (in flight, then for 3 s); across gateways identity answers the refresh token
 * rotated just before the live one with that same live token for REFRESH_REUSE_GRACE_SECONDS,
 * so a rotation race is never taken for reuse.
 */
@Injectable()
export class SessionRenewal {
  private readonly shared = new TtlCache<string, RefreshedSession>(10_000, SHARE_MS);

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  renew(refreshToken: string, client: RenewalClient): Promise<RefreshedSession> {
    const key = createHash('sha256').update(refreshToken).digest('base64url');
    return this.shared.getOrLoad(key, () =>
      this.bus.send(IdentityMessages.renewSession, { refreshToken, ip: client.ip, userAgent: client.userAgent, requestId: client.requestId }),
    );
  }
}
