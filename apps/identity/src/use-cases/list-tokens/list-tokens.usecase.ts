import { Inject, Injectable } from '@nestjs/common';
import { requireTenant, type RequestContext, type TokenRecord } from '@app/contracts';
import { canSeeAllTokens } from '../../domain/access.js';
import { toTokenRecord } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import { requirePrincipal } from '../shared/principal.js';

/** GET /tokens: every token of the customer for members:manage and administrators, otherwise the caller's own. */
@Injectable()
export class ListTokensUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(ctx: RequestContext): Promise<{ items: TokenRecord[] }> {
    const principal = requirePrincipal(ctx);
    const { customer } = requireTenant(ctx);
    const tokens = await this.store.repos.tokens.listInCustomer({
      customerId: customer.id,
      ...(canSeeAllTokens(principal) ? {} : { createdBy: principal.userId }),
    });
    const now = this.clock.now();
    return { items: tokens.map((t) => toTokenRecord(t, now)) };
  }
}
