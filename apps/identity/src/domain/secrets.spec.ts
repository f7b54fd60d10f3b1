import { describe, expect, it } from '@jest/globals';
import { constantTimeEqual, generateLoginCode, hashLoginCode, loginCodeMatches, randomToken, sha256Base64url } from './secrets.js';
import { emailOf, normalizeEmail } from './email.js';

describe('login codes', () => {
  it('are always six digits, leading zeros included, and vary', () => {
    const codes = Array.from({ length: 2000 }, () => generateLoginCode());
    for (const code of codes) expect(code).toMatch(/^[0-9]{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(1990);
    // ~10% of uniform draws below 100000 start with 0: padStart must keep them six long
    expect(codes.some((c) => c.startsWith('0'))).toBe(true);
  });

  it('are stored as a salted HMAC that only the same code and salt reproduce', () => {
    const salt = randomToken(16);
    const hash = hashLoginCode('123456', salt);
    expect(hash).not.toContain('123456');
    expect(hashLoginCode('123456', salt)).toBe(hash);
    expect(hashLoginCode('123456', randomToken(16))).not.toBe(hash);
    expect(loginCodeMatches('123456', salt, hash)).toBe(true);
    expect(loginCodeMatches('123457', salt, hash)).toBe(false);
    expect(loginCodeMatches('123456', salt, hash.slice(1))).toBe(false);
  });
});

describe('random tokens and hashes', () => {
  it('draws at least 128 bits by default (256) as base64url', () => {
    const token = randomToken();
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(randomToken()).not.toBe(token);
  });

  it('hashes high-entropy secrets with SHA-256 (base64url, 43 characters)', () => {
    expect(sha256Base64url('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('compares in constant time, unequal lengths included', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('emails', () => {
  it('are normalised to lower case without surrounding spaces', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
  });

  it('are checked by the contract Email rule', () => {
    expect(emailOf(' Ada@Example.com ')).toBe('ada@example.com');
    for (const bad of ['ada@', 'ada example.com', `${'a'.repeat(250)}@x.io`, 42]) expect(() => emailOf(bad)).toThrow('email must be a valid email address');
  });
});
