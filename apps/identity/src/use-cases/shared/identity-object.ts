import type { AdminLevel, IdentityObject, Role, Scope } from '@app/contracts';
import type { UserMembership } from '../../repositories/membership.repository.js';

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
