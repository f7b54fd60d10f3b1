import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineEvent, defineMessage } from '../messages/message.js';
import type { AdminLevel, Scope } from '../scopes.js';
import type {
  CreateCustomerRequest,
  CreatedToken,
  CreateTokenRequest,
  CustomerDomainParams,
  CustomerOnlyQuery,
  CustomerView,
  CustomerWithCounts,
  IdentityObject,
  Jwks,
  LoginRequest,
  LoginResponse,
  MemberView,
  TokenIdParams,
  TokenRecord,
  VerifyRequest,
} from './identity.schemas.js';

/** JWT `typ` of API tokens (SPEC "API token"). */
export const API_TOKEN_TYP = 'api';
/** JWT `typ` of the access cookie of a console session. */
export const SESSION_ACCESS_TYP = 'session';
/** JWT audience of every token the service issues. */
export const TOKEN_AUDIENCE = 'service';

/** Claims of the access cookie: a short-lived JWT the gateway verifies like an API token. */
export interface SessionAccessClaims {
  readonly sub: string; // user:<id>
  readonly sid: string;
  readonly cust: string;
  readonly cid: string;
  readonly scp: string;
  readonly adm: AdminLevel;
  /** SHA-256 (base64url) of the session's CSRF token; the gateway compares the presented token to it. */
  readonly csh: string;
  readonly typ: typeof SESSION_ACCESS_TYP;
}

export type CredentialKind = 'token' | 'session';

export interface CredentialStatusRequest {
  readonly kind: CredentialKind;
  readonly id: string;
}
export interface CredentialStatus {
  readonly active: boolean;
}

export interface CustomerInfo {
  readonly id: string;
  readonly domain: string;
  readonly status: 'active' | 'suspended';
  readonly isSandbox: boolean;
}
export type CustomerLookup = { readonly id: string } | { readonly domain: string };

/** The three cookie values of a new or refreshed session (SPEC "Console login" 5-6). */
export interface SessionCookieValues {
  readonly refresh: string;
  readonly csrf: string;
  readonly access: string;
  readonly accessMaxAgeSeconds: number;
  readonly refreshMaxAgeSeconds: number;
}

export interface VerifiedLogin {
  readonly identity: IdentityObject;
  readonly session: SessionCookieValues;
}

export interface CredentialRevoked {
  readonly kind: CredentialKind;
  readonly id: string;
}
export interface CustomerChanged {
  readonly id: string;
  readonly domain: string;
  /** The previous domain when it changed. */
  readonly previousDomain?: string;
}

export interface IssueTokenRequest {
  readonly customerDomain: string;
  readonly email: string;
  readonly name: string;
  readonly bundle: CreateTokenRequest['bundle'];
  readonly expiresInDays?: number;
}

type NoParams = Record<string, never>;

export const IdentityMessages = {
  /** GET /.well-known/jwks.json */
  jwks: defineMessage<EndpointCall<NoParams, NoParams, undefined>, Jwks>('identity.jwks'),
  /** The same keys for the gateway's local token verification. */
  verificationKeys: defineMessage<Record<string, never>, Jwks>('identity.keys'),
  credentialStatus: defineMessage<CredentialStatusRequest, CredentialStatus>('identity.credential.status'),
  resolveCustomer: defineMessage<CustomerLookup, CustomerInfo | null>('identity.customer.resolve'),

  login: defineMessage<EndpointCall<NoParams, NoParams, LoginRequest>, LoginResponse>('identity.auth.login'),
  verify: defineMessage<EndpointCall<NoParams, NoParams, VerifyRequest>, VerifiedLogin>('identity.auth.verify'),
  me: defineMessage<EndpointCall<NoParams, NoParams, undefined>, IdentityObject>('identity.auth.me'),

  createToken: defineMessage<EndpointCall<NoParams, CustomerOnlyQuery, CreateTokenRequest>, CreatedToken>('identity.tokens.create'),
  listTokens: defineMessage<EndpointCall<NoParams, CustomerOnlyQuery, undefined>, { items: TokenRecord[] }>('identity.tokens.list'),
  revokeToken: defineMessage<EndpointCall<TokenIdParams, CustomerOnlyQuery, undefined>, void>('identity.tokens.revoke'),

  createCustomer: defineMessage<EndpointCall<NoParams, NoParams, CreateCustomerRequest>, { customer: CustomerView }>('identity.admin.customers.create'),
  listCustomers: defineMessage<EndpointCall<NoParams, NoParams, undefined>, { items: CustomerWithCounts[] }>('identity.admin.customers.list'),
  getCustomer: defineMessage<EndpointCall<CustomerDomainParams, NoParams, undefined>, { customer: CustomerView; members: MemberView[] }>(
    'identity.admin.customers.get',
  ),

  /** Operator CLI: issue a token for a member of a customer without an HTTP session. */
  issueToken: defineMessage<IssueTokenRequest, CreatedToken>('identity.tokens.issue'),
} as const;

export const IdentityEvents = {
  /** A token or session stopped being valid; every gateway replica drops it from its cache. */
  credentialRevoked: defineEvent<CredentialRevoked>('identity.credential-revoked', 'broadcast'),
  /** A customer's status, domain or settings changed; gateways drop cached lookups. */
  customerChanged: defineEvent<CustomerChanged>('identity.customer-changed', 'broadcast'),
} as const;

export type { Scope };
