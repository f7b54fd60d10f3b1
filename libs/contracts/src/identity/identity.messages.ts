import { CUSTOMER_ERASURE_TIMEOUT_MS } from '../messages/customer-erasure.js';
import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineEvent, defineMessage } from '../messages/message.js';
import type { AdminLevel, Scope } from '../scopes.js';
import type {
  CreateCustomerRequest,
  CreatedToken,
  CreateTokenRequest,
  CustomerDeletion,
  CustomerDomainParams,
  DeleteCustomerQuery,
  CustomerOnlyQuery,
  CustomerView,
  CustomerWithCounts,
  IdentityObject,
  EmailParams,
  InviteMemberRequest,
  IssueTokenRequest,
  Jwks,
  LoginRequest,
  LoginResponse,
  MagicLinkQuery,
  MemberEntry,
  MemberView,
  PeopleList,
  PeopleQuery,
  RefreshResponse,
  SandboxTokens,
  SwitchRequest,
  TokenIdParams,
  TokenRecord,
  UpdateCustomerRequest,
  UpdatedUser,
  UpdateMemberRequest,
  UpdateUserRequest,
  VerifyRequest,
} from './identity.schemas.js';
import type { NoParams } from '../schemas.js';

/** JWT `typ` of API tokens; older types are retired (docs/api.md "API tokens"). */
export const API_TOKEN_TYP = 'api';
/** JWT `typ` of the access cookie of a console session. */
export const SESSION_ACCESS_TYP = 'session';
/** JWT audience of every token the service issues. */
export const TOKEN_AUDIENCE = 'service';

/** Claims of the access cookie: a short-lived JWT the gateway verifies like an API token. */
export interface SessionAccessClaims {
  readonly sub: string; // user:<id>
  /** A fresh id per access token (each renewal yields a different cookie). */
  readonly jti: string;
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
/**
 * Whether a token or session works, and what it may do now (so that role changes, removals,
 * switches and demotions take effect within the gateway's cache bound, like revocations).
 * Sessions: the customer the session is on now and its person's scopes there (`admin` added
 * for full administrators). Tokens: the token's scopes narrowed to what its creator holds now
 * (a token never has more scopes than the person who created it holds now).
 */
export interface CredentialStatus {
  readonly active: boolean;
  readonly customerId?: string;
  readonly scopes?: readonly Scope[];
  readonly admin?: AdminLevel;
}

/** The gateway's key set: the published keys plus the ids of retired keys (tokens signed by them are an older format). */
export interface VerificationKeySet extends Jwks {
  readonly retired: readonly string[];
}

export interface CustomerInfo {
  readonly id: string;
  readonly domain: string;
  readonly status: 'active' | 'suspended';
  readonly isSandbox: boolean;
  /** Origins allowed to call from browsers (docs/api.md "CORS"); absent means none. */
  readonly corsOrigins?: readonly string[];
  /** The customer's polling interval for its devices (Poll-After); absent or null: UPDATE_POLL_SECONDS. */
  readonly pollIntervalSeconds?: number | null;
}
/** Every origin some active customer allows: what a preflight, which carries no credentials, is checked against. */
export interface CorsOriginsOfAll {
  readonly origins: readonly string[];
}
export type CustomerLookup = { readonly id: string } | { readonly domain: string };

/** The three cookie values of a new or refreshed session (docs/api.md "Sessions and CSRF"). */
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
/** What a credential may do changed (role, customer, administrator level): gateways reload its status. */
export type CredentialChanged = CredentialRevoked;

/** POST /auth/refresh and the gateway's automatic renewal. */
export interface RefreshedSession {
  readonly body: RefreshResponse;
  readonly session: SessionCookieValues;
}

/** The gateway renews an expired access cookie with the refresh cookie (no CSRF: nothing is changed for the caller). */
export interface RenewSessionRequest {
  readonly refreshToken: string;
  readonly ip: string;
  readonly userAgent: string;
  readonly requestId: string;
}

export interface SwitchedSession {
  readonly identity: IdentityObject;
  readonly access: string;
  readonly accessMaxAgeSeconds: number;
}

export type MagicLinkResult = { readonly ok: true; readonly session: SessionCookieValues } | { readonly ok: false; readonly reason: string };
export interface CustomerChanged {
  readonly id: string;
  readonly domain: string;
  /** The previous domain when it changed. */
  readonly previousDomain?: string;
}

export const IdentityMessages = {
  /** The token keys of GET /.well-known/jwks.json (the gateway adds the firmware app's update-answer keys). */
  jwks: defineMessage<Record<string, never>, Jwks>('identity.jwks'),
  /** The same keys for the gateway's local token verification, plus retired key ids. */
  verificationKeys: defineMessage<Record<string, never>, VerificationKeySet>('identity.keys'),
  credentialStatus: defineMessage<CredentialStatusRequest, CredentialStatus>('identity.credential.status'),
  resolveCustomer: defineMessage<CustomerLookup, CustomerInfo | null>('identity.customer.resolve'),
  corsOriginsOfAll: defineMessage<Record<string, never>, CorsOriginsOfAll>('identity.customer.cors-origins'),

  login: defineMessage<EndpointCall<NoParams, NoParams, LoginRequest>, LoginResponse>('identity.auth.login'),
  verify: defineMessage<EndpointCall<NoParams, NoParams, VerifyRequest>, VerifiedLogin>('identity.auth.verify'),
  me: defineMessage<EndpointCall<NoParams, NoParams, undefined>, IdentityObject>('identity.auth.me'),
  refresh: defineMessage<EndpointCall<NoParams, NoParams, undefined>, RefreshedSession>('identity.auth.refresh'),
  /** Sent by the gateway itself when a request's access cookie is missing or expired. */
  renewSession: defineMessage<RenewSessionRequest, RefreshedSession>('identity.auth.renew'),
  switchCustomer: defineMessage<EndpointCall<NoParams, NoParams, SwitchRequest>, SwitchedSession>('identity.auth.switch'),
  logout: defineMessage<EndpointCall<NoParams, NoParams, undefined>, void>('identity.auth.logout'),
  /** GET /auth/magic: whether the link is still usable (never consumes it). */
  magicLinkCheck: defineMessage<EndpointCall<NoParams, MagicLinkQuery, undefined>, { valid: boolean; c: string; t: string }>('identity.auth.magic.check'),
  /** POST /auth/magic: consumes the link and starts a session. */
  magicLinkConfirm: defineMessage<EndpointCall<NoParams, MagicLinkQuery, undefined>, MagicLinkResult>('identity.auth.magic.confirm'),

  listMembers: defineMessage<EndpointCall<NoParams, CustomerOnlyQuery, undefined>, { items: MemberEntry[] }>('identity.members.list'),
  inviteMember: defineMessage<EndpointCall<NoParams, CustomerOnlyQuery, InviteMemberRequest>, MemberEntry>('identity.members.invite'),
  updateMember: defineMessage<EndpointCall<EmailParams, CustomerOnlyQuery, UpdateMemberRequest>, MemberEntry>('identity.members.update'),
  removeMember: defineMessage<EndpointCall<EmailParams, CustomerOnlyQuery, undefined>, void>('identity.members.remove'),
  /** GET /people: the emails behind `user:<id>` actors the caller may know. */
  namePeople: defineMessage<EndpointCall<NoParams, PeopleQuery, undefined>, PeopleList>('identity.people.name'),

  createToken: defineMessage<EndpointCall<NoParams, CustomerOnlyQuery, CreateTokenRequest>, CreatedToken>('identity.tokens.create'),
  listTokens: defineMessage<EndpointCall<NoParams, CustomerOnlyQuery, undefined>, { items: TokenRecord[] }>('identity.tokens.list'),
  revokeToken: defineMessage<EndpointCall<TokenIdParams, CustomerOnlyQuery, undefined>, void>('identity.tokens.revoke'),

  createCustomer: defineMessage<EndpointCall<NoParams, NoParams, CreateCustomerRequest>, { customer: CustomerView }>('identity.admin.customers.create'),
  listCustomers: defineMessage<EndpointCall<NoParams, NoParams, undefined>, { items: CustomerWithCounts[] }>('identity.admin.customers.list'),
  getCustomer: defineMessage<EndpointCall<CustomerDomainParams, NoParams, undefined>, { customer: CustomerView; members: MemberView[] }>(
    'identity.admin.customers.get',
  ),
  updateCustomer: defineMessage<EndpointCall<CustomerDomainParams, NoParams, UpdateCustomerRequest>, { customer: CustomerView }>(
    'identity.admin.customers.update',
  ),
  /** Waits for the apps' erasure (each bounded by CUSTOMER_ERASURE_TIMEOUT_MS) before answering. */
  deleteCustomer: defineMessage<EndpointCall<CustomerDomainParams, DeleteCustomerQuery, undefined>, CustomerDeletion>('identity.admin.customers.delete', {
    timeoutMs: CUSTOMER_ERASURE_TIMEOUT_MS + 10_000,
  }),
  listUsers: defineMessage<EndpointCall<NoParams, NoParams, undefined>, { items: MemberView[] }>('identity.admin.users.list'),
  updateUser: defineMessage<EndpointCall<EmailParams, NoParams, UpdateUserRequest>, UpdatedUser>('identity.admin.users.update'),

  /** The admin app asks whom to mail critical security events: the operator customer's enabled owners and editors. */
  operatorEmails: defineMessage<Record<string, never>, { emails: string[] }>('identity.operator.emails'),
  /** The firmware app asks whom to mail a halted rollout: the customer's domain and its enabled owners (none when the customer is gone). */
  ownerEmails: defineMessage<{ customerId: string }, { domain: string | null; emails: string[] }>('identity.customer.owner-emails'),
  /**
   * The admin app's audit lists: the email of each user id (`ids`, at most USER_EMAILS_MAX UUIDs),
   * asked once per page; ids of people no longer known are left out.
   */
  userEmails: defineMessage<{ ids: readonly string[] }, { emails: Record<string, string> }>('identity.users.emails'),
  /** The gateway's /docs page: the sandbox's public tokens (null without SANDBOX_DOMAIN). */
  sandboxTokens: defineMessage<Record<string, never>, SandboxTokens | null>('identity.sandbox.tokens'),

  /** Operator CLI: issue a token for a member of a customer without an HTTP session. */
  issueToken: defineMessage<IssueTokenRequest, CreatedToken>('identity.tokens.issue'),
} as const;

/** The most user ids one IdentityMessages.userEmails asks for (an audit page holds at most 1000 entries). */
export const USER_EMAILS_MAX = 1000;

export const IdentityEvents = {
  /** A token or session stopped being valid; every gateway replica drops it from its cache. */
  credentialRevoked: defineEvent<CredentialRevoked>('identity.credential-revoked', 'broadcast'),
  /** A token's or session's scopes or customer changed; every gateway drops its cached status. */
  credentialChanged: defineEvent<CredentialChanged>('identity.credential-changed', 'broadcast'),
  /** A customer's status, domain or settings changed; gateways drop cached lookups. */
  customerChanged: defineEvent<CustomerChanged>('identity.customer-changed', 'broadcast'),
} as const;

export type { Scope };
