import { CustomerDomainParams, type RequestContext, UpdateCustomerRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';
import type { CustomerChange } from '../../domain/records.js';
import { adminActor } from '../../domain/access.js';

const checkParams = contractCheck(CustomerDomainParams, { where: 'path parameter' });
const checkBody = contractCheck(UpdateCustomerRequest, { where: 'body property' });

/** PATCH /admin/customers/{domain}, validated when built with the contract's UpdateCustomerRequest. */
export class UpdateCustomerCommand {
  private constructor(
    /** The customer's current domain, lower-case. */
    readonly domain: string,
    readonly change: CustomerChange,
    readonly actor: string,
  ) {}

  static create(input: { ctx: RequestContext; params: unknown; body: unknown }): UpdateCustomerCommand {
    const domain = checkParams(input.params).domain.trim().toLowerCase();
    const body = checkBody(input.body ?? {});
    const change: { -readonly [K in keyof CustomerChange]: CustomerChange[K] } = {};
    if (body.name !== undefined) change.name = body.name;
    if (body.domain !== undefined) change.domain = body.domain;
    if (body.status !== undefined) change.status = body.status;
    if (body.cors_origins !== undefined) change.corsOrigins = [...new Set(body.cors_origins)];
    return new UpdateCustomerCommand(domain, change, adminActor(input.ctx.auditActor));
  }
}
