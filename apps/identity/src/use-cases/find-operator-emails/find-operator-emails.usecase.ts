import { Inject, Injectable } from '@nestjs/common';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Administrators } from '../../services/administrators.service.js';

/**
 * IdentityMessages.operatorEmails: who receives critical security events, the full
 * administrators (enabled owners and editors of the operator customer).
 */
@Injectable()
export class FindOperatorEmailsUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Administrators) private readonly administrators: Administrators,
  ) {}

  async execute(): Promise<{ emails: string[] }> {
    const operator = await this.store.repos.customers.findByDomain(this.administrators.operatorDomain);
    return { emails: operator ? await this.store.repos.memberships.enabledEmailsWithRoles(operator.id, ['owner', 'editor']) : [] };
  }
}
