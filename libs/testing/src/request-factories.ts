/**
 * Test factories for the request-side values every app receives from the gateway (a customer reference, a principal, a
 * request context, an endpoint call) and unique names. One naming convention: `make<Thing>`. App-specific factories
 * (entities, staged files, fakes) live in apps/<app>/test/factories.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type AdminLevel,
  asCustomerId,
  type CustomerRef,
  type EndpointCall,
  type Principal,
  type RequestContext,
  type Role,
  ROLE_SCOPES,
  type Scope,
  type StagedFile,
} from '@app/contracts';

let sequence = 0;
const unique = (): string => `${++sequence}-${randomBytes(3).toString('hex')}`;

/** A domain no other test uses, e.g. `customer-7-a1b2c3.example`. */
export const makeDomain = (prefix = 'customer'): string => `${prefix}-${unique()}.example`;

/** An e-mail address no other test uses, e.g. `person-8-d4e5f6@mail.example`. */
export const makeEmail = (prefix = 'person'): string => `${prefix}-${unique()}@mail.example`;

/**
 * A customer reference with a fresh id. Only the CustomerRef fields of `overrides` are taken, so a stored customer row
 * can be passed to get its reference.
 */
export function makeCustomer(overrides: Partial<CustomerRef> = {}): CustomerRef {
  const generatedId = asCustomerId(randomUUID());
  return {
    id: overrides.id ?? generatedId,
    domain: overrides.domain ?? `c-${generatedId.slice(0, 8)}.example`,
    isSandbox: overrides.isSandbox ?? false,
  };
}

export interface PrincipalOptions {
  /** Default 'session'. */
  readonly kind?: Principal['kind'];
  /** Default 'u-1'. */
  readonly userId?: string;
  /** The session or token id; default a fresh UUID. */
  readonly credentialId?: string;
  /** Gives the role's scopes when `scopes` is not given. */
  readonly role?: Role;
  /** Default: the role's scopes, plus 'admin' for a full admin. */
  readonly scopes?: readonly Scope[];
  /** Default '' (not an admin). */
  readonly admin?: AdminLevel;
}

/** A principal whose home customer is `customer`. */
export function makePrincipal(customer: CustomerRef, options: PrincipalOptions = {}): Principal {
  const admin = options.admin ?? '';
  const scopes = options.scopes ?? [...(options.role ? ROLE_SCOPES[options.role] : []), ...(admin === 'full' ? (['admin'] as Scope[]) : [])];
  return {
    kind: options.kind ?? 'session',
    userId: options.userId ?? 'u-1',
    credentialId: options.credentialId ?? randomUUID(),
    homeCustomer: customer,
    scopes,
    admin,
  };
}

/** The actor the gateway names for a principal: `user:<id>` for a session, `token:<id>` for an API token. */
function actorOf(principal: Principal): string {
  return principal.kind === 'token' ? `token:${principal.credentialId}` : `user:${principal.userId}`;
}

/**
 * A request context for `customer`. Without a principal the request is attributed to the API token 'tok-1' (for apps
 * that read only the actor); with one (`overrides.principal`, null included) the actor and audit actor follow it as the
 * gateway derives them ('anonymous' without a principal, 'admin:'-prefixed when acting on another customer). Any field
 * can be overridden.
 */
export function makeContext(customer: CustomerRef | null, overrides: Partial<RequestContext> = {}): RequestContext {
  const principal = overrides.principal ?? null;
  let actor = 'token:tok-1';
  let auditActor = actor;
  if ('principal' in overrides) {
    actor = principal ? actorOf(principal) : 'anonymous';
    auditActor = principal && customer && principal.homeCustomer.id !== customer.id ? `admin:${actor}` : actor;
  }
  return {
    requestId: randomUUID(),
    principal,
    customer,
    actor,
    auditActor,
    ip: '192.0.2.1',
    userAgent: 'jest',
    baseUrl: 'http://localhost:8080',
    ...overrides,
  };
}

export interface CallParts<Params, Query, Body> {
  readonly params?: Params;
  readonly query?: Query;
  readonly body?: Body;
  /** A stream body; it comes with its content type unless `contentType` is given. */
  readonly file?: StagedFile;
  readonly contentType?: string;
  /** The parts of a multipart body. */
  readonly files?: Readonly<Record<string, StagedFile>>;
  readonly headers?: Record<string, string>;
}

/** An endpoint call as the gateway sends it: params and query default to empty, the optional parts are set only when given. */
export function makeCall<Params, Query, Body>(ctx: RequestContext, parts: CallParts<Params, Query, Body> = {}): EndpointCall<Params, Query, Body> {
  return {
    ctx,
    params: (parts.params ?? {}) as Params,
    query: (parts.query ?? {}) as Query,
    body: parts.body as Body,
    ...(parts.file ? { file: parts.file, contentType: parts.contentType ?? parts.file.contentType } : {}),
    ...(parts.files ? { files: parts.files } : {}),
    ...(parts.headers ? { headers: parts.headers } : {}),
  };
}
