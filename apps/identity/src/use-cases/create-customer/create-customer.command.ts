import { ServiceError } from '@app/contracts';
import { validDomain, validEmail, validText } from '../shared/validate.js';

const ORIGIN = /^https?:\/\/[^/\s]+$/;

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
    const origins = input.corsOrigins ?? [];
    if (!Array.isArray(origins) || origins.length > 50 || !origins.every((o) => typeof o === 'string' && o.length <= 255 && ORIGIN.test(o))) {
      throw ServiceError.badRequest('cors_origins must be origins such as https://console.example.com');
    }
    return new CreateCustomerCommand(domain, name, ownerEmail, [...new Set(origins as string[])], input.actor);
  }
}
