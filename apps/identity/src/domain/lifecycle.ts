import { SESSION_IDLE_LIMIT_MS } from './limits.js';

export type TokenStatus = 'active' | 'revoked' | 'expired';

export function tokenStatus(token: { revokedAt: Date | null; expiresAt: Date }, now: Date): TokenStatus {
  if (token.revokedAt) return 'revoked';
  return token.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}

/** A session ends after 12 hours of inactivity, 7 days in total, or when revoked. */
export function sessionIsLive(session: { revokedAt: Date | null; expiresAt: Date; lastUsedAt: Date }, now: Date): boolean {
  if (session.revokedAt) return false;
  if (session.expiresAt.getTime() <= now.getTime()) return false;
  return now.getTime() - session.lastUsedAt.getTime() < SESSION_IDLE_LIMIT_MS;
}
