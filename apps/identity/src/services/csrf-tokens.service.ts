import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hmacBase64url } from '../domain/secrets.js';
import { IdentityStore } from '../repositories/identity.store.js';
import { Clock } from './clock.js';

const CSRF_SECRET = 'csrf';

/**
 * CSRF tokens are derived, not stored: base64url(HMAC-SHA256(secret, session id)). The secret
 * lives in identity.secrets, so /auth/me can hand the same token out again on any replica.
 */
@Injectable()
export class CsrfTokens {
  private secret: Promise<Buffer> | null = null;

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Forgets the secret read (a restore replaced it): the next token reads it again. */
  forget(): void {
    this.secret = null;
  }

  async forSession(sessionId: string): Promise<string> {
    return hmacBase64url(await this.key(), sessionId);
  }

  private key(): Promise<Buffer> {
    this.secret ??= this.store.repos.secrets.getOrCreate(CSRF_SECRET, randomBytes(32), this.clock.now()).catch((err: unknown) => {
      this.secret = null;
      throw err;
    });
    return this.secret;
  }
}
