import { describe, expect, it } from '@jest/globals';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { buildAccessTokenClaims, buildApiTokenClaims, csrfTokenHash } from './claims.js';

const customer = { id: '6f1c8f0e-3b1e-4c55-9d7a-1c2b3a4d5e6f', domain: 'acme.example' };
const issuedAt = new Date('2026-11-21T10:00:00.500Z');

describe('API token claims', () => {
  const claims = buildApiTokenClaims({
    issuer: 'https://fw.example.test',
    userId: 'u-1',
    tokenId: 'j-1',
    customer,
    scopes: ['fw:read', 'logdata:read'],
    issuedAt,
    expiresAt: new Date('2027-02-19T10:00:00.500Z'),
  });

  it('carry exactly the claims of an API token', () => {
    expect(Object.keys(claims).sort()).toEqual(['aud', 'cid', 'cust', 'exp', 'iat', 'iss', 'jti', 'nbf', 'scp', 'sub', 'typ']);
    expect(claims).toEqual({
      iss: 'https://fw.example.test',
      sub: 'user:u-1',
      aud: ['service'],
      iat: 1795255200,
      nbf: 1795255200,
      exp: 1795255200 + 90 * 86400,
      jti: 'j-1',
      typ: 'api',
      cust: 'acme.example',
      cid: customer.id,
      scp: 'fw:read logdata:read',
    });
  });

  it('round-trip through an EdDSA signature', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const jwt = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'EdDSA', kid: 'k' }).sign(privateKey);
    const { payload } = await jwtVerify(jwt, publicKey, { issuer: claims.iss, audience: 'service', currentDate: issuedAt });
    expect(payload).toEqual(claims);
  });
});

describe('session access claims', () => {
  const claims = buildAccessTokenClaims({
    issuer: 'https://fw.example.test',
    userId: 'u-2',
    sessionId: 's-1',
    customer,
    scopes: ['fw:read'],
    admin: 'read',
    csrfToken: 'csrf-value',
    issuedAt,
    ttlSeconds: 900,
    tokenId: 'a-1',
  });

  it('carry the session, customer, scopes, admin level and the CSRF hash, for 15 minutes', () => {
    expect(claims).toEqual({
      iss: 'https://fw.example.test',
      aud: ['service'],
      iat: 1795255200,
      nbf: 1795255200,
      exp: 1795255200 + 900,
      sub: 'user:u-2',
      jti: 'a-1',
      sid: 's-1',
      cust: 'acme.example',
      cid: customer.id,
      scp: 'fw:read',
      adm: 'read',
      csh: createHash('sha256').update('csrf-value').digest('base64url'),
      typ: 'session',
    });
  });

  it('hash the CSRF token the way the gateway checks it', () => {
    expect(csrfTokenHash('x')).toBe(createHash('sha256').update('x').digest('base64url'));
  });
});
