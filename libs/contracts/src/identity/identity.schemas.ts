import { Type, type Static } from '@sinclair/typebox';
import { CustomerQuery, DomainName, Email, NullableTimestamp, Timestamp, UUID_UNANCHORED } from '../schemas.js';
import { BUNDLES, ROLES, SCOPES } from '../scopes.js';

export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)));
export const ScopeSchema = Type.Union(SCOPES.map((s) => Type.Literal(s)));
export const BundleSchema = Type.Union(
  BUNDLES.map((b) => Type.Literal(b)),
  { 'x-error': `bundle must be one of ${BUNDLES.join(', ')}` },
);

/** Who is logged in: the answer of /auth/verify, /auth/me and /auth/switch. */
export const IdentityObject = Type.Object(
  {
    admin: Type.String({ description: "'' for non-administrators, 'read' or 'full' otherwise" }),
    csrf_token: Type.String(),
    customer: Type.String(),
    email: Type.String(),
    memberships: Type.Array(Type.Object({ domain: Type.String(), role: Type.String() })),
    role: Type.String(),
    scopes: Type.Array(Type.String()),
  },
  { $id: 'Identity' },
);
export type IdentityObject = Static<typeof IdentityObject>;

export const LoginRequest = Type.Object({ email: Email });
export type LoginRequest = Static<typeof LoginRequest>;
export const LoginResponse = Type.Object({ sent: Type.Boolean(), detail: Type.String() });
export type LoginResponse = Static<typeof LoginResponse>;

export const VerifyRequest = Type.Object({
  email: Email,
  code: Type.String({ pattern: '^[0-9]{6}$', 'x-error': 'code must be exactly 6 digits' }),
});
export type VerifyRequest = Static<typeof VerifyRequest>;

/** What a token's record and the answer that creates it both hold. */
const TOKEN_FIELDS = {
  id: Type.String(),
  name: Type.String(),
  bundle: Type.String(),
  scopes: Type.Array(Type.String()),
  created_by: Type.String(),
  created_at: Timestamp,
  expires_at: Timestamp,
};

export const TokenRecord = Type.Object(
  {
    ...TOKEN_FIELDS,
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
    revoked_at: NullableTimestamp,
    last_used_at: NullableTimestamp,
  },
  { $id: 'TokenRecord' },
);
export type TokenRecord = Static<typeof TokenRecord>;

export const CreatedToken = Type.Object(
  {
    ...TOKEN_FIELDS,
    token: Type.String({ description: 'The API token; shown only here' }),
  },
  {
    $id: 'CreatedToken',
    examples: [
      {
        id: '6a1f0c2e-4b8d-4e3a-9c71-0d2f5b8e7a14',
        name: 'build server',
        bundle: 'uploader',
        scopes: ['fw:read', 'fw:write', 'logdata:write'],
        created_by: 'user:0b5e3c1a-7d2f-4e8b-a9c6-1f4d7e2b8a30',
        created_at: '2026-11-26T10:00:00.000Z',
        expires_at: '2027-02-24T10:00:00.000Z',
        token: 'eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJ0b2tlbiJ9.c2lnbmF0dXJl',
      },
    ],
  },
);
export type CreatedToken = Static<typeof CreatedToken>;

/** An API token's lifetime when none is asked for, and the longest one may be asked for (docs/api.md "API tokens"). */
export const API_TOKEN_DEFAULT_DAYS = 90;
export const API_TOKEN_MAX_DAYS = 365;

const TokenName = Type.String({ minLength: 1, maxLength: 100, 'x-error': 'name must be 1 to 100 characters' });
const TokenLifetimeDays = Type.Integer({
  minimum: 1,
  maximum: API_TOKEN_MAX_DAYS,
  'x-error': `expires_in_days must be an integer from 1 to ${API_TOKEN_MAX_DAYS}`,
});

export const CreateTokenRequest = Type.Object(
  { name: TokenName, bundle: BundleSchema, expires_in_days: Type.Optional(TokenLifetimeDays) },
  { additionalProperties: false, examples: [{ name: 'build server', bundle: 'uploader', expires_in_days: 90 }] },
);
export type CreateTokenRequest = Static<typeof CreateTokenRequest>;

/** IdentityMessages.issueToken (the operator CLI): a token for a member of a customer, with the rules of POST /tokens. */
export const IssueTokenRequest = Type.Object({
  customerDomain: DomainName,
  email: Email,
  name: TokenName,
  bundle: BundleSchema,
  expiresInDays: Type.Optional(TokenLifetimeDays),
});
export type IssueTokenRequest = Static<typeof IssueTokenRequest>;

export const TokenIdParams = Type.Object({ id: Type.String({ format: 'uuid', 'x-error': 'token id must be a UUID' }) });
export type TokenIdParams = Static<typeof TokenIdParams>;

export const CustomerOnlyQuery = Type.Object({ customer: CustomerQuery });
export type CustomerOnlyQuery = Static<typeof CustomerOnlyQuery>;

export const CustomerCountsSchema = Type.Object({
  firmware: Type.Integer(),
  logdata: Type.Integer(),
  devices: Type.Integer(),
  tags: Type.Integer(),
  active_tokens: Type.Integer(),
  stored_bytes: Type.Integer(),
});

export const CustomerSchema = Type.Object(
  {
    domain: Type.String(),
    name: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    cors_origins: Type.Array(Type.String()),
    is_sandbox: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Customer' },
);
export type CustomerView = Static<typeof CustomerSchema>;
export const CustomerWithCounts = Type.Composite([CustomerSchema, Type.Object({ counts: CustomerCountsSchema })]);
export type CustomerWithCounts = Static<typeof CustomerWithCounts>;

export const MemberSchema = Type.Object(
  {
    email: Type.String(),
    domain: Type.String(),
    role: Type.String(),
    disabled: Type.Boolean(),
    created_at: Timestamp,
    last_login_at: NullableTimestamp,
    user_disabled: Type.Boolean(),
  },
  { $id: 'Member' },
);
export type MemberView = Static<typeof MemberSchema>;

export const Origin = Type.String({
  pattern: '^https?://[^/\\s]+$',
  maxLength: 255,
  'x-error': 'cors_origins must be origins such as https://console.example.com',
});
/** A customer's CORS origins (docs/api.md): what the gateway allows cross-origin calls from. */
export const CorsOrigins = Type.Array(Origin, { maxItems: 50 });

export const CreateCustomerRequest = Type.Object(
  {
    domain: DomainName,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, 'x-error': 'name must be 1 to 200 characters' })),
    owner_email: Type.Optional(Email),
    cors_origins: Type.Optional(CorsOrigins),
  },
  { additionalProperties: false },
);
export type CreateCustomerRequest = Static<typeof CreateCustomerRequest>;

export const CustomerDomainParams = Type.Object({ domain: Type.String({ minLength: 1, maxLength: 253 }) });
export type CustomerDomainParams = Static<typeof CustomerDomainParams>;

export const Jwk = Type.Object({ alg: Type.String(), crv: Type.String(), kid: Type.String(), kty: Type.String(), use: Type.String(), x: Type.String() });
export const JwksSchema = Type.Object({ keys: Type.Array(Jwk) }, { $id: 'Jwks' });
export type Jwks = Static<typeof JwksSchema>;

// ---------------------------------------------------------------- sessions

export const SwitchRequest = Type.Object(
  { domain: Type.String({ minLength: 1, maxLength: 253, 'x-error': 'domain must be a customer domain' }) },
  { additionalProperties: false },
);
export type SwitchRequest = Static<typeof SwitchRequest>;

/** POST /auth/refresh: the session goes on; cookies carry the new refresh and access tokens. */
export const RefreshResponse = Type.Object(
  {
    csrf_token: Type.String({ description: 'Unchanged for the life of the session' }),
    access_expires_at: Timestamp,
    session_expires_at: Timestamp,
  },
  { $id: 'RefreshResponse' },
);
export type RefreshResponse = Static<typeof RefreshResponse>;

/** The magic link of a login mail: `c` names the challenge, `t` is the link token. */
export const MagicLinkQuery = Type.Object({
  c: Type.String({ format: 'uuid', 'x-error': 'c must be the challenge id of a login link' }),
  t: Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$', 'x-error': 't must be the token of a login link' }),
});
export type MagicLinkQuery = Static<typeof MagicLinkQuery>;

// ---------------------------------------------------------------- members (docs/api.md "Members and administrators' operations")

export const MemberEntry = Type.Object(
  {
    email: Type.String(),
    role: RoleSchema,
    disabled: Type.Boolean(),
    created_at: Timestamp,
    last_login_at: NullableTimestamp,
  },
  { $id: 'MemberEntry' },
);
export type MemberEntry = Static<typeof MemberEntry>;

const RoleInput = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  { 'x-error': `role must be one of ${ROLES.join(', ')}` },
);

export const InviteMemberRequest = Type.Object({ email: Email, role: RoleInput }, { additionalProperties: false });
export type InviteMemberRequest = Static<typeof InviteMemberRequest>;

export const UpdateMemberRequest = Type.Object({ role: RoleInput }, { additionalProperties: false });
export type UpdateMemberRequest = Static<typeof UpdateMemberRequest>;

/** GET /people: at most this many `user:<id>` actors per request (a page of a list). */
export const PEOPLE_MAX_IDS = 100;

export const PeopleQuery = Type.Object({
  customer: CustomerQuery,
  id: Type.Array(
    Type.String({
      pattern: `^user:${UUID_UNANCHORED}$`,
      'x-error': 'id must be user:<uuid>',
    }),
    {
      minItems: 1,
      maxItems: PEOPLE_MAX_IDS,
      description: 'Repeatable: the actors to name, as lists show them (created_by, uploaded_by…: `user:<uuid>`).',
      'x-error': `1 to ${PEOPLE_MAX_IDS} id parameters`,
    },
  ),
});
export type PeopleQuery = Static<typeof PeopleQuery>;

export const PersonName = Type.Object({ id: Type.String({ description: 'user:<uuid>, as asked' }), email: Type.String() });
export const PeopleList = Type.Object(
  {
    items: Type.Array(PersonName, {
      description: 'The asked people the caller may know: members of the customer (any person, for administrators). Others are left out.',
    }),
  },
  { $id: 'PeopleList' },
);
export type PeopleList = Static<typeof PeopleList>;

export const EmailParams = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254, 'x-error': 'email must be a valid email address' }) });
export type EmailParams = Static<typeof EmailParams>;

export const MemberQuery = CustomerOnlyQuery;

// ---------------------------------------------------------------- administrators

export const UpdateCustomerRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, 'x-error': 'name must be 1 to 200 characters' })),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended')], { 'x-error': 'status must be active or suspended' })),
    domain: Type.Optional(DomainName),
    cors_origins: Type.Optional(CorsOrigins),
  },
  { additionalProperties: false },
);
export type UpdateCustomerRequest = Static<typeof UpdateCustomerRequest>;

/** DELETE /admin/customers/{domain}: `confirm` repeats the domain (checked by identity: 400 when it differs). */
export const DeleteCustomerQuery = Type.Object({
  confirm: Type.String({ minLength: 1, maxLength: 253, 'x-error': 'confirm must repeat the domain' }),
});
export type DeleteCustomerQuery = Static<typeof DeleteCustomerQuery>;

/** How a deletion ended: `done` false when an app has not erased its part yet (identity retries until it has). */
export interface CustomerDeletion {
  readonly done: boolean;
}

export const UpdateUserRequest = Type.Object({ disabled: Type.Boolean({ 'x-error': 'disabled must be true or false' }) }, { additionalProperties: false });
export type UpdateUserRequest = Static<typeof UpdateUserRequest>;

export const UpdatedUser = Type.Object({ disabled: Type.Boolean(), email: Type.String() }, { $id: 'UpdatedUser' });
export type UpdatedUser = Static<typeof UpdatedUser>;

// ---------------------------------------------------------------- sandbox

/** The sandbox's public tokens, shown on /docs (SANDBOX_DOMAIN). */
export interface SandboxTokens {
  readonly domain: string;
  readonly tokens: ReadonlyArray<{ readonly bundle: string; readonly scopes: readonly string[]; readonly token: string; readonly expires_at: string }>;
}
