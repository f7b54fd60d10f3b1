import { CreateCustomerRequest, type RequestContext } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { adminActor } from '../../domain/access.js';
import { normalizeEmail } from '../../domain/email.js';

const checkBody = contractCheck(CreateCustomerRequest, { where: 'body property' });

/** POST /admin/customers, validated when built with the contract's CreateCustomerRequest. */
export class CreateCustomerCommand {
  private constructor(
    readonly domain: string,
    readonly name: string,
    readonly ownerEmail: string | null,
    /** Each once. */
    readonly corsOrigins: readonly string[],
    readonly actor: string,
  ) {}

  static create(input: { ctx: RequestContext; body: unknown }): CreateCustomerCommand {
    const body = checkBody(input.body);
    return new CreateCustomerCommand(
      body.domain,
      body.name ?? body.domain,
      body.owner_email === undefined ? null : normalizeEmail(body.owner_email),
      [...new Set(body.cors_origins ?? [])],
      adminActor(input.ctx.auditActor),
    );
  }
}
