import { Inject, Injectable } from '@nestjs/common';
import { FirmwareErrors, RegistryMessages, ServiceError } from '@app/contracts';
import { MessageBus } from '@app/infra';

const COUNTS_TIMEOUT_MS = 5_000;

/** How many devices carry each tag of a customer, asked of the registry (503 when it cannot answer). */
@Injectable()
export class DeviceTagCounts {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  async of(customerId: string): Promise<Record<string, number>> {
    try {
      return (await this.bus.send(RegistryMessages.tagCounts, { customerId }, { timeoutMs: COUNTS_TIMEOUT_MS })) ?? {};
    } catch (err) {
      if (ServiceError.is(err)) throw FirmwareErrors.device_tag_counts_unavailable({ reason: err.message });
      throw err;
    }
  }
}
