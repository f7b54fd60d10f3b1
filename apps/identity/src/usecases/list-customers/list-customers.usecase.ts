import { Inject, Injectable } from '@nestjs/common';
import type { CustomerWithCounts } from '@app/contracts';
import { toCustomerView } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import { CustomerUsage } from '../../services/customer-usage.service.js';

/**
 * GET /admin/customers with counts. Active tokens come from the identity schema; log files
 * and stored bytes from the logdata app (zeros when it does not answer); firmware, devices
 * and tags are 0 until those apps answer a counts message.
 */
@Injectable()
export class ListCustomersUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(CustomerUsage) private readonly usage: CustomerUsage,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<{ items: CustomerWithCounts[] }> {
    const customers = await this.store.repos.customers.listAll();
    const ids = customers.map((c) => c.id);
    const [tokens, logdata] = await Promise.all([this.store.repos.tokens.countActiveByCustomer(ids, this.clock.now()), this.usage.logdata(ids)]);
    return {
      items: customers.map((customer) => ({
        ...toCustomerView(customer),
        counts: {
          firmware: 0,
          logdata: integer(logdata[customer.id]?.count),
          devices: 0,
          tags: 0,
          active_tokens: tokens.get(customer.id) ?? 0,
          stored_bytes: integer(logdata[customer.id]?.storedBytes),
        },
      })),
    };
  }
}

function integer(value: unknown): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}
