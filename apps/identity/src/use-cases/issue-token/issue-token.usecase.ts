import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type CreatedToken, IdentityErrors } from '@app/contracts';
import { personScopes } from '../../domain/access.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Administrators } from '../../services/administrators.service.js';
import { CreateTokenCommand } from '../create-token/create-token.command.js';
import { CreateTokenUseCase } from '../create-token/create-token.usecase.js';
import type { IssueTokenCommand } from './issue-token.command.js';

/**
 * Finds the customer and the member, then creates the token as that person: the bundle is
 * checked against their role there (and the admin bundle against their administrator level,
 * operator customer only), exactly as if they had asked through the API.
 */
@Injectable()
export class IssueTokenUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Administrators) private readonly administrators: Administrators,
    @Inject(CreateTokenUseCase) private readonly createToken: CreateTokenUseCase,
  ) {}

  async execute(command: IssueTokenCommand): Promise<CreatedToken> {
    const repos = this.store.repos;
    const customer = await repos.customers.findByDomain(command.customerDomain);
    if (!customer) throw CommonErrors.customer_not_found();
    if (customer.status !== 'active') throw IdentityErrors.customer_suspended();
    const user = await repos.users.findByEmail(command.email);
    const role = user ? await repos.memberships.findRole({ customerId: customer.id, userId: user.id }) : null;
    if (!user || !role) throw IdentityErrors.member_not_found();
    if (user.disabled) throw IdentityErrors.user_disabled();
    const admin = await this.administrators.levelOf(repos, user.id);
    return this.createToken.execute(
      CreateTokenCommand.create({
        customer: { id: customer.id, domain: customer.domain, isSandbox: customer.isSandbox },
        creator: { userId: user.id, scopes: personScopes(role, admin), admin },
        name: command.name,
        bundle: command.bundle,
        expiresInDays: command.expiresInDays,
        actor: 'operator:cli',
      }),
    );
  }
}
