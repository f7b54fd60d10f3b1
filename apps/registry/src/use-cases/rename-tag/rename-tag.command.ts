import type { CustomerId, CustomerTagRename } from '@app/contracts';
import { requireCustomerId } from '@app/platform';
import { normalizeTag } from '../../domain/device-values.js';

/** RegistryMessages.renameTag (the Tags API, called by the firmware app), validated when built. */
export class RenameTagCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly from: string,
    readonly to: string,
  ) {}

  static create(request: Partial<CustomerTagRename> | undefined): RenameTagCommand {
    const input = request ?? {};
    return new RenameTagCommand(requireCustomerId(input.customerId), normalizeTag(input.from), normalizeTag(input.to));
  }
}
