import type { AdminLevel, CreatedToken, CustomerInfo, CustomerView, IdentityObject, MemberEntry, MemberView, Role, Scope, TokenRecord } from '@app/contracts';
import type { CustomerMember, UserMembership } from '../repositories/membership.repository.js';
import { userSubject } from './claims.js';
import type { ApiToken, Customer } from './records.js';
import { tokenStatus } from './lifecycle.js';

/** Entities never leave the app: these build the contract shapes (RFC 3339 strings, snake_case). */
export function toCustomerView(customer: Customer): CustomerView {
  return {
    domain: customer.domain,
    name: customer.name,
    status: publicStatus(customer),
    cors_origins: [...customer.corsOrigins],
    is_sandbox: customer.isSandbox,
    created_at: customer.createdAt.toISOString(),
    updated_at: customer.updatedAt.toISOString(),
  };
}

/** A customer being deleted is hidden from every lookup; where one still shows, it is not active. */
function publicStatus(customer: Customer): 'active' | 'suspended' {
  return customer.status === 'deleting' ? 'suspended' : customer.status;
}

export function toCustomerInfo(customer: Customer): CustomerInfo {
  return {
    id: customer.id,
    domain: customer.domain,
    status: publicStatus(customer),
    isSandbox: customer.isSandbox,
    corsOrigins: [...customer.corsOrigins],
    pollIntervalSeconds: customer.pollIntervalSeconds,
  };
}

/** A member / user entry: membership-level `disabled` mirrors the user's state (no per-membership switch exists). */
export function toMemberView(member: CustomerMember, domain: string): MemberView {
  return {
    email: member.email,
    domain,
    role: member.role,
    disabled: member.userDisabled,
    created_at: member.createdAt.toISOString(),
    last_login_at: member.lastLoginAt?.toISOString() ?? null,
    user_disabled: member.userDisabled,
  };
}

type TokenFacts = Readonly<Pick<ApiToken, 'id' | 'name' | 'bundle' | 'createdBy' | 'createdAt' | 'expiresAt'>> & { readonly scopes: readonly string[] };

/** What a token's record and the answer that creates it both say. */
function tokenFields(token: TokenFacts) {
  return {
    id: token.id,
    name: token.name,
    bundle: token.bundle,
    scopes: [...token.scopes],
    created_by: userSubject(token.createdBy),
    created_at: token.createdAt.toISOString(),
    expires_at: token.expiresAt.toISOString(),
  };
}

export function toTokenRecord(token: ApiToken, now: Date): TokenRecord {
  return {
    ...tokenFields(token),
    status: tokenStatus(token, now),
    revoked_at: token.revokedAt?.toISOString() ?? null,
    last_used_at: token.lastUsedAt?.toISOString() ?? null,
  };
}

export function toCreatedToken(token: TokenFacts, jwt: string): CreatedToken {
  return { ...tokenFields(token), token: jwt };
}

/** The identity object: what /auth/verify, /auth/me and /auth/switch answer. */
export function identityObject(input: {
  email: string;
  customerDomain: string;
  role: Role | null;
  scopes: readonly Scope[];
  admin: AdminLevel;
  csrfToken: string;
  memberships: readonly UserMembership[];
}): IdentityObject {
  return {
    admin: input.admin,
    csrf_token: input.csrfToken,
    customer: input.customerDomain,
    email: input.email,
    memberships: input.memberships.map((m) => ({ domain: m.domain, role: m.role })),
    role: input.role ?? '',
    scopes: [...input.scopes],
  };
}

/** A member as the member API shows it. */
export function toMemberEntry(member: CustomerMember): MemberEntry {
  return {
    email: member.email,
    role: member.role,
    disabled: member.userDisabled,
    created_at: member.createdAt.toISOString(),
    last_login_at: member.lastLoginAt?.toISOString() ?? null,
  };
}
