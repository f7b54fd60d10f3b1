import { Inject, Injectable } from '@nestjs/common';
import { type CustomerRef, type Principal, scopeAllows } from '@app/contracts';
import { personScopes } from '../../domain/access.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Administrators } from '../../services/administrators.service.js';
import { lowerAdminLevel } from '../../domain/access.js';
import type { TokenCreator } from './create-token.command.js';

/**
 * What a caller may hand out in a customer: the credential's scopes, narrowed to what the
 * person holds there now (a demoted member's still-valid session or token cannot mint
 * tokens above their new role), and the lower of the credential's and the current admin level.
 */
@Injectable()
export class TokenCreators {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Administrators) private readonly administrators: Administrators,
  ) {}

  async forPrincipal(principal: Principal, customer: CustomerRef): Promise<TokenCreator> {
    const repos = this.store.repos;
    const [currentAdmin, currentRole] = await Promise.all([
      this.administrators.levelOf(repos, principal.userId),
      repos.memberships.findRole({ customerId: customer.id, userId: principal.userId }),
    ]);
    const held = personScopes(currentRole, currentAdmin);
    return {
      userId: principal.userId,
      scopes: principal.scopes.filter((scope) => scopeAllows(held, scope)),
      admin: lowerAdminLevel(principal.admin, currentAdmin),
    };
  }
}
