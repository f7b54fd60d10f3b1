import { describe, expect, it } from '@jest/globals';
import { sessionIsLive, tokenStatus } from './lifecycle.js';

const at = (iso: string): Date => new Date(iso);

describe('token status', () => {
  const token = { revokedAt: null, expiresAt: at('2026-12-01T00:00:00Z') };
  it('is active until it expires, expired from the expiry instant, revoked whenever revoked', () => {
    expect(tokenStatus(token, at('2026-11-30T23:59:59Z'))).toBe('active');
    expect(tokenStatus(token, at('2026-12-01T00:00:00Z'))).toBe('expired');
    expect(tokenStatus({ ...token, revokedAt: at('2026-11-01T00:00:00Z') }, at('2026-12-02T00:00:00Z'))).toBe('revoked');
  });
});

describe('session liveness', () => {
  const session = { revokedAt: null, lastUsedAt: at('2026-11-21T00:00:00Z'), expiresAt: at('2026-11-28T00:00:00Z') };
  it('ends after 12 idle hours', () => {
    expect(sessionIsLive(session, at('2026-11-21T11:59:59Z'))).toBe(true);
    expect(sessionIsLive(session, at('2026-11-21T12:00:00Z'))).toBe(false);
  });
  it('ends after 7 days in total however active', () => {
    const busy = { ...session, lastUsedAt: at('2026-11-27T23:00:00Z') };
    expect(sessionIsLive(busy, at('2026-11-27T23:59:59Z'))).toBe(true);
    expect(sessionIsLive(busy, at('2026-11-28T00:00:00Z'))).toBe(false);
  });
  it('ends when revoked', () => {
    expect(sessionIsLive({ ...session, revokedAt: at('2026-11-21T01:00:00Z') }, at('2026-11-21T02:00:00Z'))).toBe(false);
  });
});
