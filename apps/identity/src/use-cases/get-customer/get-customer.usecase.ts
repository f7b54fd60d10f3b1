import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type CustomerView, type MemberView } from '@app/contracts';
import { toCustomerView, toMemberView } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import type { GetCustomerCommand } from './get-customer.command.js';

/** GET /admin/customers/{domain}: the customer and its members. */
@Injectable()
export class GetCustomerUseCase {
  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  async execute(command: GetCustomerCommand): Promise<{ customer: CustomerView; members: MemberView[] }> {
    const customer = await this.store.repos.customers.findByDomain(command.domain);
    if (!customer) throw CommonErrors.customer_not_found();
    const members = await this.store.repos.memberships.listMembers(customer.id);
    return { customer: toCustomerView(customer), members: members.map((m) => toMemberView(m, customer.domain)) };
  }
}
