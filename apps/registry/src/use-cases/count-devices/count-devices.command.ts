import type { CustomerId } from '@app/contracts';
import { requireCustomerId } from '@app/platform';

/** RegistryMessages.counts (the admin customer list): the customers as asked, and as ids. */
export class CountDevicesCommand {
  private constructor(
    readonly asked: readonly string[],
    readonly customerIds: readonly CustomerId[],
  ) {}

  static create(request: { customerIds?: unknown } | undefined): CountDevicesCommand {
    const asked = Array.isArray(request?.customerIds) ? (request.customerIds as string[]) : [];
    return new CountDevicesCommand(asked, asked.map(requireCustomerId));
  }
}
