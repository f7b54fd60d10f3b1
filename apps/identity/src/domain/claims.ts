import { type AdminLevel, API_TOKEN_TYP, type Scope, SESSION_ACCESS_TYP, type SessionAccessClaims, TOKEN_AUDIENCE } from '@app/contracts';
import { createHash, randomUUID } from 'node:crypto';

/** Registered claims every token of the service carries. */
export interface RegisteredClaims {
  readonly iss: string;
  readonly aud: string[];
  readonly iat: number;
  readonly nbf: number;
  readonly exp: number;
}

/** The claims of an API token (JWT): exactly these, no others. */
export interface ApiTokenClaims extends RegisteredClaims {
  readonly sub: string;
  readonly jti: string;
  readonly typ: typeof API_TOKEN_TYP;
  readonly cust: string;
  readonly cid: string;
  readonly scp: string;
}

export type AccessTokenClaims = SessionAccessClaims & RegisteredClaims;

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

export const userSubject = (userId: string): string => `user:${userId}`;

export function buildApiTokenClaims(input: {
  issuer: string;
  userId: string;
  tokenId: string;
  customer: { id: string; domain: string };
  scopes: readonly Scope[];
  issuedAt: Date;
  expiresAt: Date;
}): ApiTokenClaims {
  const iat = seconds(input.issuedAt);
  return {
    iss: input.issuer,
    sub: userSubject(input.userId),
    aud: [TOKEN_AUDIENCE],
    exp: seconds(input.expiresAt),
    nbf: iat,
    iat,
    jti: input.tokenId,
    typ: API_TOKEN_TYP,
    cust: input.customer.domain,
    cid: input.customer.id,
    scp: input.scopes.join(' '),
  };
}

/** base64url(SHA-256(csrf token)): what the access cookie carries so the gateway can check X-CSRF-Token. */
export function csrfTokenHash(csrfToken: string): string {
  return createHash('sha256').update(csrfToken).digest('base64url');
}

export function buildAccessTokenClaims(input: {
  issuer: string;
  userId: string;
  sessionId: string;
  customer: { id: string; domain: string };
  scopes: readonly Scope[];
  admin: AdminLevel;
  csrfToken: string;
  issuedAt: Date;
  ttlSeconds: number;
  /** Default: a random UUID. */
  tokenId?: string;
}): AccessTokenClaims {
  const iat = seconds(input.issuedAt);
  return {
    iss: input.issuer,
    aud: [TOKEN_AUDIENCE],
    iat,
    nbf: iat,
    exp: iat + input.ttlSeconds,
    sub: userSubject(input.userId),
    jti: input.tokenId ?? randomUUID(),
    sid: input.sessionId,
    cust: input.customer.domain,
    cid: input.customer.id,
    scp: input.scopes.join(' '),
    adm: input.admin,
    csh: csrfTokenHash(input.csrfToken),
    typ: SESSION_ACCESS_TYP,
  };
}
