import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  API_TOKEN_TYP,
  type AdminLevel,
  type CredentialStatus,
  type CustomerInfo,
  type CustomerRef,
  asCustomerId,
  ErrorCode,
  isScope,
  type Principal,
  SESSION_ACCESS_TYP,
  SESSION_COOKIES,
  type Scope,
  ServiceError,
  type SetCookie,
  sessionCookies,
  TOKEN_AUDIENCE,
} from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { CustomerDirectory, SERVICE_CONFIG } from '@app/platform';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, type JWTPayload, jwtVerify } from 'jose';
import { AuthErrors } from './auth-errors.js';
import { CredentialStatusCache } from './credential-status.js';
import { type RenewalClient, SessionRenewal } from './session-renewal.js';
import { VerificationKeys } from './verification-keys.js';

/**
 * "Older format" (docs/api.md "API tokens"): a token the service issued once and
 * no longer accepts is answered 401 asking for a new token, never "invalid token". It is one of:
 * - a JWT whose `typ` is a retired token type: `api+hs256` (the HMAC-signed format before
 *   Ed25519) or `api-v0` (the first format, before `typ api`);
 * - a JWT with `typ: api` signed with any algorithm but EdDSA (HS256 and friends);
 * - an EdDSA token signed by a key identity has retired (signing_keys.active false: its kid is
 *   listed as retired, no longer published in the JWKS).
 */
export const RETIRED_TOKEN_TYPES: readonly string[] = ['api+hs256', 'api-v0'];

export interface Credentials {
  readonly authorization?: string;
  readonly cookies: Record<string, string>;
  /** Who asks, for a renewal of the session (identity's security events). */
  readonly client?: RenewalClient;
}

export interface Authentication {
  readonly principal: Principal;
  /** For sessions: SHA-256 (base64url) of the session's CSRF token, to check writes. */
  readonly csrfHash: string | null;
  /** The access cookie was renewed with the refresh cookie: these cookies go on the response. */
  readonly renewed?: readonly SetCookie[];
}

@Injectable()
export class Authenticator {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(VerificationKeys) private readonly keys: VerificationKeys,
    @Inject(CredentialStatusCache) private readonly credentials: CredentialStatusCache,
    @Inject(CustomerDirectory) private readonly customers: CustomerDirectory,
    @Inject(SessionRenewal) private readonly renewal: SessionRenewal,
  ) {}

  /**
   * null when the request carries no credential at all. An Authorization header wins over
   * cookies. With `renew`, a session whose access cookie is missing or no longer works but
   * whose refresh cookie does is renewed (Authentication.renewed).
   */
  async authenticate(input: Credentials, options: { renew?: boolean } = {}): Promise<Authentication | null> {
    if (input.authorization !== undefined) {
      const match = /^Bearer +([^\s]+) *$/i.exec(input.authorization);
      if (!match) throw AuthErrors.notBearer();
      return { principal: await this.fromApiToken(match[1]), csrfHash: null };
    }
    const access = input.cookies[SESSION_COOKIES.access];
    const refresh = options.renew ? input.cookies[SESSION_COOKIES.refresh] : undefined;
    if (access) {
      try {
        return await this.fromSessionCookie(access);
      } catch (err) {
        if (!refresh || !ServiceError.is(err) || err.code !== ErrorCode.Unauthenticated) throw err;
      }
    } else if (!refresh) {
      return null;
    }
    return this.renew(refresh, input.client);
  }

  /** Whether `presented` is the CSRF token of the session (constant-time). */
  static csrfMatches(csrfHash: string, presented: string | undefined): boolean {
    if (!presented) return false;
    const expected = Buffer.from(csrfHash, 'base64url');
    const actual = createHash('sha256').update(presented).digest();
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  private async renew(refresh: string, client: RenewalClient | undefined): Promise<Authentication> {
    let renewed;
    try {
      renewed = await this.renewal.renew(refresh, client ?? { ip: '', userAgent: '', requestId: '' });
    } catch (err) {
      // Conflict: a replay within an operator's refresh grace; the request is not authenticated either.
      throw AuthErrors.renewalRefused(err) ?? err;
    }
    const authentication = await this.fromSessionCookie(renewed.session.access);
    return { ...authentication, renewed: sessionCookies(renewed.session) };
  }

  private async fromApiToken(token: string): Promise<Principal> {
    const payload = await this.verify(token, API_TOKEN_TYP, AuthErrors.revokedOrExpired);
    const jti = stringClaim(payload, 'jti');
    const customer = await this.activeCustomer(stringClaim(payload, 'cid'), AuthErrors.revokedOrExpired);
    const status = await this.credentials.status('token', jti);
    if (!status.active) throw AuthErrors.revokedOrExpired();
    // The token's scopes as identity narrows them now (its creator's standing), else its claims.
    const scopes = status.scopes ? status.scopes.filter(isScope) : parseScopes(payload.scp);
    const adminClaimed = status.admin ?? (scopes.includes('admin') ? 'full' : '');
    const admin: AdminLevel = adminClaimed === 'full' && scopes.includes('admin') && customer.domain === this.config.operatorDomain ? 'full' : '';
    return {
      kind: 'token',
      userId: userIdOf(payload),
      credentialId: jti,
      homeCustomer: customer,
      scopes: admin === 'full' ? scopes : scopes.filter((s) => s !== 'admin'),
      admin,
    };
  }

  /**
   * A session's access cookie: the JWT names the session (sid), its customer (cid) and the hash
   * of its CSRF token (csh). What it may do is the session's current standing from identity
   * (cached like token status): the cookie works only for the customer the session is on now.
   */
  private async fromSessionCookie(token: string): Promise<Authentication> {
    const payload = await this.verify(token, SESSION_ACCESS_TYP, AuthErrors.sessionEnded, () => AuthErrors.sessionEnded());
    const sid = stringClaim(payload, 'sid');
    const cid = stringClaim(payload, 'cid');
    let status: CredentialStatus = await this.credentials.status('session', sid);
    if (status.active && status.customerId && status.customerId !== cid) status = await this.credentials.status('session', sid, { fresh: true });
    if (!status.active) throw AuthErrors.sessionEnded();
    if (status.customerId && status.customerId !== cid) throw AuthErrors.sessionForOtherCustomer();
    const customer = await this.activeCustomer(cid, () => AuthErrors.sessionEnded());
    const claimedAdmin: AdminLevel = payload.adm === 'full' || payload.adm === 'read' ? payload.adm : '';
    const admin = status.admin ?? claimedAdmin;
    const scopes = status.scopes ? status.scopes.filter(isScope) : withAdmin(parseScopes(payload.scp), admin);
    return {
      principal: { kind: 'session', userId: userIdOf(payload), credentialId: sid, homeCustomer: customer, scopes, admin },
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
    if (!key) {
      if (header.kid && this.keys.isRetired(header.kid)) throw typ === API_TOKEN_TYP ? AuthErrors.oldFormat() : invalid('retired signing key');
      throw invalid('unknown signing key');
    }
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

function withAdmin(scopes: Scope[], admin: AdminLevel): Scope[] {
  return admin === 'full' && !scopes.includes('admin') ? [...scopes, 'admin'] : scopes;
}
