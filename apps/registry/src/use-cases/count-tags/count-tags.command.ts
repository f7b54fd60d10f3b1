import type { CustomerId } from '@app/contracts';
import { requireCustomerId } from '@app/platform';

/** RegistryMessages.tagCounts (the Tags API, called by the firmware app). */
export class CountTagsCommand {
  private constructor(readonly customerId: CustomerId) {}

  static create(request: { customerId?: unknown } | undefined): CountTagsCommand {
    return new CountTagsCommand(requireCustomerId(request?.customerId));
  }
}
