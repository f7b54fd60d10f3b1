import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** A 6-digit login code, uniformly drawn (leading zeros kept). */
export function generateLoginCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** Random bytes as base64url: 32 bytes (256 bits) by default. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** The stored form of a login code: HMAC-SHA256 keyed with the challenge's own salt. */
export function hashLoginCode(code: string, salt: string): string {
  return createHmac('sha256', salt).update(code).digest('base64url');
}

export function loginCodeMatches(code: string, salt: string, storedHash: string): boolean {
  return constantTimeEqual(hashLoginCode(code, salt), storedHash);
}

/** Stored form of high-entropy secrets (magic-link tokens, refresh tokens): no salt needed. */
export function sha256Base64url(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export function hmacBase64url(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
