import { CustomerDomainParams, type RequestContext } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { adminActor } from '../../domain/access.js';

const checkParams = contractCheck(CustomerDomainParams, { where: 'path parameter' });

/**
 * DELETE /admin/customers/{domain}?confirm=<domain>. `confirm` is kept as sent: a missing or
 * different one is identity's customer_delete_unconfirmed, not a schema refusal.
 */
export class DeleteCustomerCommand {
  private constructor(
    readonly domain: string,
    readonly confirm: string | undefined,
    readonly actor: string,
  ) {}

  static create(input: { ctx: RequestContext; params: unknown; query: { confirm?: unknown } | undefined }): DeleteCustomerCommand {
    const domain = checkParams(input.params).domain.trim().toLowerCase();
    const confirm = typeof input.query?.confirm === 'string' ? input.query.confirm : undefined;
    return new DeleteCustomerCommand(domain, confirm, adminActor(input.ctx.auditActor));
  }
}
