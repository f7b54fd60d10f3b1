import { validCorsOrigins, validDomain, validEmail, validText } from '../shared/validate.js';

/** POST /admin/customers. */
export class CreateCustomerCommand {
  private constructor(
    readonly domain: string,
    readonly name: string,
    readonly ownerEmail: string | null,
    readonly corsOrigins: readonly string[],
    readonly actor: string,
  ) {}

  static create(input: { domain: unknown; name?: unknown; ownerEmail?: unknown; corsOrigins?: unknown; actor: string }): CreateCustomerCommand {
    const domain = validDomain(input.domain);
    const name = input.name === undefined ? domain : validText(input.name, 'name', 1, 200);
    const ownerEmail = input.ownerEmail === undefined ? null : validEmail(input.ownerEmail, 'owner_email');
    const origins = validCorsOrigins(input.corsOrigins ?? []);
    return new CreateCustomerCommand(domain, name, ownerEmail, origins, input.actor);
  }
}
