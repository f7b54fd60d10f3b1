import { type CustomerId, ServiceError, TAG_RULE, isTagName } from '@app/contracts';
import { customerIdOf } from '../../domain/customer-id.js';

function tagOf(value: unknown): string {
  if (!isTagName(value)) throw ServiceError.badRequest(TAG_RULE);
  return value;
}

/** RegistryMessages.renameTag / deleteTag (the Tags API, called by the firmware app), validated when built. */
export class CustomerTagCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly tag: string,
    /** Rename only. */
    readonly to: string | null,
  ) {}

  static rename(input: { customerId: unknown; from: unknown; to: unknown }): CustomerTagCommand {
    return new CustomerTagCommand(customerIdOf(input.customerId), tagOf(input.from), tagOf(input.to));
  }

  static delete(input: { customerId: unknown; tag: unknown }): CustomerTagCommand {
    return new CustomerTagCommand(customerIdOf(input.customerId), tagOf(input.tag), null);
  }
}
