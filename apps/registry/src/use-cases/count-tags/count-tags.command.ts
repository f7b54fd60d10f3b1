import type { CustomerId } from '@app/contracts';
import { customerIdOf } from '../../domain/customer-id.js';

/** RegistryMessages.tagCounts (the Tags API, called by the firmware app). */
export class CountTagsCommand {
  private constructor(readonly customerId: CustomerId) {}

  static create(request: { customerId?: unknown } | undefined): CountTagsCommand {
    return new CountTagsCommand(customerIdOf(request?.customerId));
  }
}
