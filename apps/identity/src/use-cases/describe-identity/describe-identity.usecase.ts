import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type IdentityObject, type RequestContext, requireTenant } from '@app/contracts';
import { IdentityStore } from '../../repositories/identity.store.js';
import { CsrfTokens } from '../../services/csrf-tokens.service.js';
import { identityObject } from '../../domain/views.js';
import { requirePrincipal } from '../../domain/access.js';

/**
 * GET /auth/me. The customer is the one the request acts on (an administrator's `customer=`
 * included); the role is the caller's own role there ('' when they have none); scopes and
 * admin level are those of the credential. Sessions get their CSRF token again (derived from
 * the session id); API tokens need none ('').
 */
@Injectable()
export class DescribeIdentityUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(CsrfTokens) private readonly csrf: CsrfTokens,
  ) {}

  async execute(ctx: RequestContext): Promise<IdentityObject> {
    const principal = requirePrincipal(ctx);
    const { customer } = requireTenant(ctx);
    const repos = this.store.repos;
    const user = await repos.users.findById(principal.userId);
    if (!user) throw CommonErrors.token_revoked();
    const [role, memberships] = await Promise.all([
      repos.memberships.findRole({ customerId: customer.id, userId: user.id }),
      repos.memberships.listForUser(user.id),
    ]);
    return identityObject({
      email: user.email,
      customerDomain: customer.domain,
      role,
      scopes: principal.scopes,
      admin: principal.admin,
      csrfToken: principal.kind === 'session' ? await this.csrf.forSession(principal.credentialId) : '',
      memberships,
    });
  }
}
