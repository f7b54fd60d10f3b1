import { type CustomerId, type RequestContext, requireTenant } from '@app/contracts';
import { canSeeAllTokens, requirePrincipal } from '../../domain/access.js';

/** GET /tokens: whose tokens of the customer the caller may see. */
export class ListTokensCommand {
  private constructor(
    readonly customerId: CustomerId,
    /** Null: every token of the customer (members:manage, administrators); otherwise only this person's. */
    readonly createdBy: string | null,
  ) {}

  static create(input: { ctx: RequestContext }): ListTokensCommand {
    const principal = requirePrincipal(input.ctx);
    const { customer } = requireTenant(input.ctx);
    return new ListTokensCommand(customer.id, canSeeAllTokens(principal) ? null : principal.userId);
  }
}
