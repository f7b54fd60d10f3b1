import { CustomerDomainParams } from '@app/contracts';
import { contractCheck } from '@app/platform';

const checkParams = contractCheck(CustomerDomainParams, { where: 'path parameter' });

/** GET /admin/customers/{domain}: the domain as the contract's CustomerDomainParams allow it, in the stored (lower-case) form. */
export class GetCustomerCommand {
  private constructor(readonly domain: string) {}

  static create(input: { params: unknown }): GetCustomerCommand {
    return new GetCustomerCommand(checkParams(input.params).domain.trim().toLowerCase());
  }
}
