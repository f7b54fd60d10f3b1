import { Inject, Injectable } from '@nestjs/common';
import { type CountsByCustomer, type CustomerId, LogdataMessages } from '@app/contracts';
import { JsonLogger, MessageBus } from '@app/infra';

/** Longest the admin customer list waits for the logdata app before answering zeros. */
export const USAGE_TIMEOUT_MS = 3_000;

/**
 * Per-customer usage held by other apps. Each source is optional: an app that is down or slow
 * contributes zeros instead of failing the admin list. Firmware, devices and tags join here
 * when those apps answer a counts message.
 */
@Injectable()
export class CustomerUsage {
  private readonly logger = new JsonLogger('identity');

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  async logdata(customerIds: readonly CustomerId[]): Promise<CountsByCustomer> {
    if (customerIds.length === 0) return {};
    try {
      return await this.bus.send(LogdataMessages.counts, { customerIds: [...customerIds] }, { timeoutMs: USAGE_TIMEOUT_MS });
    } catch (err) {
      this.logger.warn('logdata counts unavailable; answering zeros', { error: err instanceof Error ? err.message : String(err) });
      return {};
    }
  }
}
