import { Inject, Injectable } from '@nestjs/common';
import { asCustomerId, isUuid } from '@app/contracts';
import { IdentityStore } from '../../repositories/identity.store.js';

/**
 * IdentityMessages.ownerEmails: whom the firmware app mails when a rollout halts, the
 * customer's enabled owners, with its domain (null and nobody when the customer is unknown).
 */
@Injectable()
export class FindOwnerEmailsUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(request: { customerId?: unknown } | undefined): Promise<{ domain: string | null; emails: string[] }> {
    const id = request?.customerId;
    if (typeof id !== 'string' || !isUuid(id)) return { domain: null, emails: [] };
    const customer = await this.store.repos.customers.findById(asCustomerId(id.toLowerCase()));
    if (!customer) return { domain: null, emails: [] };
    return { domain: customer.domain, emails: await this.store.repos.memberships.enabledEmailsWithRoles(customer.id, ['owner']) };
  }
}
