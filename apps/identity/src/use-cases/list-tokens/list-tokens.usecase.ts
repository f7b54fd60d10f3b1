import { Inject, Injectable } from '@nestjs/common';
import type { TokenRecord } from '@app/contracts';
import { toTokenRecord } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import type { ListTokensCommand } from './list-tokens.command.js';

/** GET /tokens: every token of the customer for members:manage and administrators, otherwise the caller's own. */
@Injectable()
export class ListTokensUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: ListTokensCommand): Promise<{ items: TokenRecord[] }> {
    const tokens = await this.store.repos.tokens.listInCustomer({
      customerId: command.customerId,
      ...(command.createdBy === null ? {} : { createdBy: command.createdBy }),
    });
    const now = this.clock.now();
    return { items: tokens.map((t) => toTokenRecord(t, now)) };
  }
}
