import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hmacBase64url } from '../domain/secrets.js';
import { IdentityStore } from '../repositories/identity.store.js';
import { Clock } from './clock.js';

const ROTATION_SECRET = 'refresh-rotation';

/**
 * Refresh tokens rotate on every use; a reused one revokes the session. The successor of a token is
 * derived from it: base64url(HMAC-SHA256(secret, token)), 256 bits like the first token (drawn at
 * random). Only hashes are stored, yet the token rotated just before the live one can be recognised
 * as such (its successor is the live one), which an operator's REFRESH_REUSE_GRACE_SECONDS needs.
 * Knowing a token without the secret (identity.secrets) tells nothing about its successor.
 */
@Injectable()
export class RefreshTokens {
  private secret: Promise<Buffer> | null = null;

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async successorOf(token: string): Promise<string> {
    return hmacBase64url(await this.key(), `rotate:${token}`);
  }

  private key(): Promise<Buffer> {
    this.secret ??= this.store.repos.secrets.getOrCreate(ROTATION_SECRET, randomBytes(32), this.clock.now()).catch((err: unknown) => {
      this.secret = null;
      throw err;
    });
    return this.secret;
  }
}
