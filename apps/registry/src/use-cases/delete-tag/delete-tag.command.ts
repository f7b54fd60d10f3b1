import type { CustomerId, CustomerTagRequest } from '@app/contracts';
import { requireCustomerId } from '@app/platform';
import { normalizeTag } from '../../domain/device-values.js';

/** RegistryMessages.deleteTag (the Tags API, called by the firmware app), validated when built. */
export class DeleteTagCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly tag: string,
  ) {}

  static create(request: Partial<CustomerTagRequest> | undefined): DeleteTagCommand {
    const input = request ?? {};
    return new DeleteTagCommand(requireCustomerId(input.customerId), normalizeTag(input.tag));
  }
}
