import { type CustomerId, type RequestContext, requireTenant } from '@app/contracts';

/** GET /members: the customer the request acts on. */
export class ListMembersCommand {
  private constructor(readonly customerId: CustomerId) {}

  static create(input: { ctx: RequestContext }): ListMembersCommand {
    return new ListMembersCommand(requireTenant(input.ctx).customer.id);
  }
}
