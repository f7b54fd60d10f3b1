import { Inject, Injectable } from '@nestjs/common';
import {
  CommonErrors,
  isStorableText,
  type ServiceError,
  STORABLE_TEXT_RULE,
  asCustomerId,
  type AuthRequirement,
  type CustomerRef,
  type Principal,
  READ_SCOPES,
  type Scope,
  scopeAllows,
  SESSION_COOKIES,
  type SetCookie,
} from '@app/contracts';
import { MetricsToken, type ServiceConfig } from '@app/infra';
import { CustomerDirectory, SERVICE_CONFIG } from '@app/platform';
import { AuthErrors } from './auth-errors.js';
import { type Authentication, Authenticator, type Credentials } from './authenticator.js';

export interface AccessRequest {
  readonly auth: AuthRequirement;
  readonly method: string;
  readonly credentials: Credentials;
  /** The `customer` query parameter, when sent. */
  readonly customerParam: string | undefined;
  /** CSRF token from the header, the `csrf` query parameter or form field. */
  readonly csrfToken: string | undefined;
  /** Told who the caller is as soon as that is known, even if access is then refused (request log). */
  readonly onAuthenticated?: (principal: Principal) => void;
  /** Told when `customerParam` names a customer the caller may not act on (the request log notes it for the detectors). */
  readonly onCustomerRefused?: () => void;
  /**
   * Told when the session's access cookie was renewed with its refresh cookie: these cookies
   * must reach the browser whatever the request's outcome (the refresh token has rotated).
   */
  readonly onRenewed?: (cookies: readonly SetCookie[]) => void;
}

export interface Access {
  readonly principal: Principal | null;
  readonly customer: CustomerRef | null;
  /** Whether an administrator acts on a customer other than their own. */
  readonly actingAsAdmin: boolean;
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const ANONYMOUS: Access = Object.freeze({ principal: null, customer: null, actingAsAdmin: false });

/**
 * The access of a request to a public endpoint that carries no credentials (no Authorization
 * header, no access cookie), else null. Decided without an AccessRequest, so the hot public
 * path (the update check) builds none.
 */
export function anonymousAccess(auth: AuthRequirement, credentials: Pick<Credentials, 'authorization' | 'cookies'>): Access | null {
  return auth.kind === 'public' && credentials.authorization === undefined && credentials.cookies[SESSION_COOKIES.access] === undefined ? ANONYMOUS : null;
}

/**
 * The gateway's authorisation, applied to every request from the endpoint's declared
 * requirement: credentials, CSRF for cookie writes, administrator and sandbox rules, the
 * `customer=` rule, then the scope.
 */
@Injectable()
export class AccessPolicy {
  private readonly metricsToken: MetricsToken;

  constructor(
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    private readonly authenticator: Authenticator,
    private readonly customers: CustomerDirectory,
  ) {
    this.metricsToken = new MetricsToken(config.metricsToken);
  }

  /** Settled at once (no promise) for a public endpoint called without credentials: the update check. */
  check(request: AccessRequest): Access | Promise<Access> {
    const { auth } = request;
    switch (auth.kind) {
      case 'public':
        return (
          anonymousAccess(auth, request.credentials) ??
          this.optionalPrincipal(request.credentials).then((principal) => ({ principal, customer: null, actingAsAdmin: false }))
        );
      case 'metrics':
        return this.checkMetrics(request.credentials);
      case 'principal':
        return this.checkPrincipal(request, auth);
      case 'refresh':
        // The app checks the refresh cookie and the CSRF token itself (EndpointCall.refresh).
        return ANONYMOUS;
    }
  }

  private async checkPrincipal(request: AccessRequest, auth: Extract<AuthRequirement, { kind: 'principal' }>): Promise<Access> {
    const authentication = await this.authenticator.authenticate(request.credentials, { renew: true });
    if (!authentication) throw AuthErrors.missing();
    if (authentication.renewed) request.onRenewed?.(authentication.renewed);
    const { principal } = authentication;
    request.onAuthenticated?.(principal);
    this.checkCsrf(authentication, request);
    if (auth.notInSandbox && principal.homeCustomer.isSandbox) throw AuthErrors.sandbox();
    if (auth.admin === 'full' && principal.admin !== 'full') throw AuthErrors.missingScope('admin');
    if (auth.admin === 'read' && principal.admin === '') throw AuthErrors.missingScope('admin');
    if (!auth.tenant) {
      if (auth.scope) this.checkScope(principal.scopes, auth.scope);
      if (auth.alsoScope) this.checkScope(principal.scopes, auth.alsoScope);
      return { principal, customer: null, actingAsAdmin: false };
    }
    const customer = await this.targetCustomer(principal, request.customerParam, request);
    const actingAsAdmin = customer.id !== principal.homeCustomer.id;
    const held = this.effectiveScopes(principal, actingAsAdmin);
    if (auth.scope) this.checkScope(held, auth.scope);
    if (auth.alsoScope) this.checkScope(held, auth.alsoScope);
    return { principal, customer, actingAsAdmin };
  }

  /** A read-only administrator reads any customer; full administrators hold `admin`. */
  private effectiveScopes(principal: Principal, actingAsAdmin: boolean): readonly Scope[] {
    if (actingAsAdmin && principal.admin === 'read') return READ_SCOPES;
    return principal.scopes;
  }

  private checkScope(held: readonly Scope[], needed: Scope): void {
    if (!scopeAllows(held, needed)) throw AuthErrors.missingScope(needed);
  }

  private checkCsrf(authentication: Authentication, request: AccessRequest): void {
    if (authentication.principal.kind !== 'session' || !UNSAFE_METHODS.has(request.method)) return;
    if (!authentication.csrfHash || !Authenticator.csrfMatches(authentication.csrfHash, request.csrfToken)) throw AuthErrors.csrf();
  }

  private async targetCustomer(principal: Principal, param: string | undefined, request: AccessRequest): Promise<CustomerRef> {
    if (param === undefined) return principal.homeCustomer;
    // Read before the query is validated (access comes first): the text rule of every input holds here too.
    if (!isStorableText(param)) throw CommonErrors.invalid_request({ detail: `query parameter customer ${STORABLE_TEXT_RULE}` });
    if (param.toLowerCase() === principal.homeCustomer.domain) return principal.homeCustomer;
    if (principal.admin === '') throw this.customerRefused(request);
    const customer = await this.customers.byDomain(param);
    if (!customer) throw this.customerRefused(request);
    return { id: asCustomerId(customer.id), domain: customer.domain, isSandbox: customer.isSandbox };
  }

  private customerRefused(request: AccessRequest): ServiceError {
    request.onCustomerRefused?.();
    return AuthErrors.customerNotFound();
  }

  private async optionalPrincipal(credentials: Credentials): Promise<Principal | null> {
    try {
      return (await this.authenticator.authenticate(credentials))?.principal ?? null;
    } catch {
      return null; // public endpoints ignore bad credentials; they only label the request log
    }
  }

  private async checkMetrics(credentials: Credentials): Promise<Access> {
    if (this.metricsToken.matches(MetricsToken.bearerOf(credentials.authorization))) {
      return { principal: null, customer: null, actingAsAdmin: false };
    }
    let principal: Principal | null = null;
    try {
      principal = (await this.authenticator.authenticate(credentials))?.principal ?? null;
    } catch {
      throw AuthErrors.metrics();
    }
    if (!principal || principal.admin === '') throw AuthErrors.metrics();
    return { principal, customer: null, actingAsAdmin: false };
  }
}
