import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  API_TOKEN_TYP,
  type AdminLevel,
  type CustomerInfo,
  type CustomerRef,
  asCustomerId,
  isScope,
  type Principal,
  SESSION_ACCESS_TYP,
  SESSION_COOKIES,
  type Scope,
  TOKEN_AUDIENCE,
} from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, type JWTPayload, jwtVerify } from 'jose';
import { AuthErrors } from './auth-errors.js';
import { CredentialStatusCache } from './credential-status.js';
import { CustomerDirectory } from './customer-directory.js';
import { VerificationKeys } from './verification-keys.js';

/**
 * Token `typ` values the service issued once and no longer accepts (SPEC "Versioning"): such
 * a token is answered with the request to create a new one instead of "invalid token".
 * `api+hs256` stands for the HMAC-signed format before Ed25519; any HS256 JWT carrying
 * typ `api` is treated the same way.
 */
export const RETIRED_TOKEN_TYPES: readonly string[] = ['api+hs256', 'api-v0'];

export interface Credentials {
  readonly authorization?: string;
  readonly cookies: Record<string, string>;
}

export interface Authentication {
  readonly principal: Principal;
  /** For sessions: SHA-256 (base64url) of the session's CSRF token, to check writes. */
  readonly csrfHash: string | null;
}

@Injectable()
export class Authenticator {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    private readonly keys: VerificationKeys,
    private readonly credentials: CredentialStatusCache,
    private readonly customers: CustomerDirectory,
  ) {}

  /** null when the request carries no credential at all. */
  async authenticate(input: Credentials): Promise<Authentication | null> {
    if (input.authorization !== undefined) {
      const match = /^Bearer +([^\s]+) *$/i.exec(input.authorization);
      if (!match) throw AuthErrors.notBearer();
      return { principal: await this.fromApiToken(match[1]!), csrfHash: null };
    }
    const access = input.cookies[SESSION_COOKIES.access];
    if (access) return this.fromSessionCookie(access);
    return null;
  }

  /** Whether `presented` is the CSRF token of the session (constant-time). */
  static csrfMatches(csrfHash: string, presented: string | undefined): boolean {
    if (!presented) return false;
    const expected = Buffer.from(csrfHash, 'base64url');
    const actual = createHash('sha256').update(presented).digest();
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  private async fromApiToken(token: string): Promise<Principal> {
    const payload = await this.verify(token, API_TOKEN_TYP, AuthErrors.revokedOrExpired);
    const jti = stringClaim(payload, 'jti');
    const customer = await this.activeCustomer(stringClaim(payload, 'cid'), AuthErrors.revokedOrExpired);
    if (!(await this.credentials.isActive('token', jti))) throw AuthErrors.revokedOrExpired();
    const scopes = parseScopes(payload.scp);
    const admin: AdminLevel = scopes.includes('admin') && customer.domain === this.config.operatorDomain ? 'full' : '';
    return {
      kind: 'token',
      userId: userIdOf(payload),
      credentialId: jti,
      homeCustomer: customer,
      scopes: admin === 'full' ? scopes : scopes.filter((s) => s !== 'admin'),
      admin,
    };
  }

  private async fromSessionCookie(token: string): Promise<Authentication> {
    const payload = await this.verify(token, SESSION_ACCESS_TYP, AuthErrors.sessionEnded, AuthErrors.sessionEnded);
    const sid = stringClaim(payload, 'sid');
    const customer = await this.activeCustomer(stringClaim(payload, 'cid'), AuthErrors.sessionEnded);
    if (!(await this.credentials.isActive('session', sid))) throw AuthErrors.sessionEnded();
    const adm = payload.adm === 'full' || payload.adm === 'read' ? payload.adm : '';
    const scopes = parseScopes(payload.scp);
    return {
      principal: {
        kind: 'session',
        userId: userIdOf(payload),
        credentialId: sid,
        homeCustomer: customer,
        scopes: adm === 'full' ? [...scopes, 'admin'] : scopes,
        admin: adm,
      },
      csrfHash: stringClaim(payload, 'csh'),
    };
  }

  private async verify(token: string, typ: string, expired: () => Error, invalid: (reason: string) => Error = AuthErrors.invalid): Promise<JWTPayload> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    let claims: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      claims = decodeJwt(token);
    } catch {
      throw invalid('not a JWT');
    }
    if (RETIRED_TOKEN_TYPES.includes(String(claims.typ)) || (header.alg !== 'EdDSA' && claims.typ === API_TOKEN_TYP)) throw AuthErrors.oldFormat();
    if (header.alg !== 'EdDSA') throw invalid('unsupported algorithm');
    if (claims.typ !== typ) throw invalid('wrong token type');
    const key = header.kid ? await this.keys.get(header.kid) : null;
    if (!key) throw invalid('unknown signing key');
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['EdDSA'],
        issuer: this.config.publicUrl,
        audience: TOKEN_AUDIENCE,
        clockTolerance: 5,
      });
      return payload;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw expired();
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) throw invalid('bad signature');
      if (err instanceof joseErrors.JWTClaimValidationFailed) throw invalid(`${err.claim} claim check failed`);
      throw invalid('malformed');
    }
  }

  private async activeCustomer(id: string, onInactive: () => Error): Promise<CustomerRef> {
    const customer: CustomerInfo | null = await this.customers.byId(id);
    if (!customer || customer.status !== 'active') throw onInactive();
    return { id: asCustomerId(customer.id), domain: customer.domain, isSandbox: customer.isSandbox };
  }
}

function stringClaim(payload: JWTPayload, name: string): string {
  const value = payload[name];
  if (typeof value !== 'string' || !value) throw AuthErrors.invalid(`${name} claim missing`);
  return value;
}

function userIdOf(payload: JWTPayload): string {
  const sub = stringClaim(payload, 'sub');
  if (!sub.startsWith('user:')) throw AuthErrors.invalid('sub claim check failed');
  return sub.slice('user:'.length);
}

function parseScopes(scp: unknown): Scope[] {
  if (typeof scp !== 'string') throw AuthErrors.invalid('scp claim missing');
  return scp.split(' ').filter(isScope);
}
