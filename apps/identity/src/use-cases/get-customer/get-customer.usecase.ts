import { Inject, Injectable } from '@nestjs/common';
import { type CustomerView, type MemberView, ServiceError } from '@app/contracts';
import { toCustomerView, toMemberView } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';

export const CUSTOMER_NOT_FOUND = 'customer not found';

/** GET /admin/customers/{domain}: the customer and its members. */
@Injectable()
export class GetCustomerUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(domain: string): Promise<{ customer: CustomerView; members: MemberView[] }> {
    const customer = await this.store.repos.customers.findByDomain(domain.trim().toLowerCase());
    if (!customer) throw ServiceError.notFound(CUSTOMER_NOT_FOUND);
    const members = await this.store.repos.memberships.listMembers(customer.id);
    return { customer: toCustomerView(customer), members: members.map((m) => toMemberView(m, customer.domain)) };
  }
}
