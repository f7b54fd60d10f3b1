import { Inject, Injectable } from '@nestjs/common';
import type { CustomerWithCounts } from '@app/contracts';
import type { LogRequest } from '@app/infra';
import { toCustomerView } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import { CustomerUsage } from '../../services/customer-usage.service.js';

/**
 * GET /admin/customers with counts. Active tokens come from the identity schema; log files,
 * stored bytes, builds, devices and tags from the apps that own them (zeros for an app that
 * does not answer).
 */
@Injectable()
export class ListCustomersUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(CustomerUsage) private readonly usage: CustomerUsage,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** `request`: whose log lines an app that does not answer writes. */
  async execute(request: LogRequest): Promise<{ items: CustomerWithCounts[] }> {
    const customers = await this.store.repos.customers.listAll();
    const ids = customers.map((c) => c.id);
    const [tokens, usage] = await Promise.all([this.store.repos.tokens.countActiveByCustomer(ids, this.clock.now()), this.usage.of(ids, request)]);
    return {
      items: customers.map((customer) => ({
        ...toCustomerView(customer),
        counts: {
          firmware: usage.get(customer.id)?.firmware ?? 0,
          logdata: usage.get(customer.id)?.logdata ?? 0,
          devices: usage.get(customer.id)?.devices ?? 0,
          tags: usage.get(customer.id)?.tags ?? 0,
          active_tokens: tokens.get(customer.id) ?? 0,
          stored_bytes: usage.get(customer.id)?.storedBytes ?? 0,
        },
      })),
    };
  }
}
