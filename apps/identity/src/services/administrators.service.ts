import { Inject, Injectable } from '@nestjs/common';
import type { AdminLevel } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { adminLevelFor } from '../domain/access.js';
import type { IdentityRepositories } from '../repositories/identity.store.js';

/** Who is an administrator is decided by membership of the operator customer. */
@Injectable()
export class Administrators {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  get operatorDomain(): string {
    return this.config.operatorDomain;
  }

  isOperator(customer: { domain: string }): boolean {
    return customer.domain === this.config.operatorDomain;
  }

  async levelOf(repos: IdentityRepositories, userId: string): Promise<AdminLevel> {
    const operator = await repos.customers.findByDomain(this.config.operatorDomain);
    if (!operator) return '';
    return adminLevelFor(await repos.memberships.findRole({ customerId: operator.id, userId }));
  }
}
