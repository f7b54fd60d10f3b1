import { isCustomerDomain, type RequestContext, SwitchRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';

const checkBody = contractCheck(SwitchRequest, { where: 'body property' });

/** POST /auth/switch, validated when built with the contract's SwitchRequest. */
export class SwitchCustomerCommand {
  private constructor(
    readonly ctx: RequestContext,
    /** Lower-case; null when it is no customer domain at all (answered like an unknown one). */
    readonly domain: string | null,
  ) {}

  static create(input: { ctx: RequestContext; body: unknown }): SwitchCustomerCommand {
    const domain = checkBody(input.body).domain.trim().toLowerCase();
    return new SwitchCustomerCommand(input.ctx, isCustomerDomain(domain) ? domain : null);
  }
}
