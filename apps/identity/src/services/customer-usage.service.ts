import { Inject, Injectable } from '@nestjs/common';
import { type CustomerId, FirmwareMessages, LogdataMessages, type MessageDef, RegistryMessages } from '@app/contracts';
import { JsonLogger, type LogRequest, MessageBus } from '@app/infra';

/** Longest the admin customer list waits for another app before answering zeros for it. */
export const USAGE_TIMEOUT_MS = 3_000;

export interface CustomerUsageCounts {
  readonly firmware: number;
  readonly logdata: number;
  readonly devices: number;
  readonly tags: number;
  readonly storedBytes: number;
}

type CountsMessage<R> = MessageDef<{ readonly customerIds: readonly string[] }, Record<string, R>>;

/**
 * Per-customer usage held by other apps (log files, builds, devices, tags). Each source is
 * optional: an app that is down or slow contributes zeros instead of failing the admin list.
 */
@Injectable()
export class CustomerUsage {
  private readonly logger = new JsonLogger('identity');

  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  async of(customerIds: readonly CustomerId[], request?: LogRequest): Promise<Map<CustomerId, CustomerUsageCounts>> {
    const log = this.logger.forRequest(request);
    const [logdata, firmware, registry] = await Promise.all([
      this.ask(LogdataMessages.counts, customerIds, log),
      this.ask(FirmwareMessages.counts, customerIds, log),
      this.ask(RegistryMessages.counts, customerIds, log),
    ]);
    return new Map(
      customerIds.map((id) => [
        id,
        {
          firmware: integer(firmware[id]?.firmware),
          logdata: integer(logdata[id]?.count),
          devices: integer(registry[id]?.devices),
          // A tag on builds and devices alike counts once.
          tags: new Set([...(firmware[id]?.tags ?? []), ...(registry[id]?.tags ?? [])]).size,
          // Everything stored for the customer: log files, firmware binaries and release notes.
          storedBytes: integer(logdata[id]?.storedBytes) + integer(firmware[id]?.storedBytes),
        },
      ]),
    );
  }

  private async ask<R>(message: CountsMessage<R>, customerIds: readonly CustomerId[], log: JsonLogger): Promise<Record<string, R>> {
    if (customerIds.length === 0) return {};
    try {
      return await this.bus.send(message, { customerIds: [...customerIds] }, { timeoutMs: USAGE_TIMEOUT_MS });
    } catch (err) {
      log.warn(`${message.pattern} unavailable; answering zeros`, { error: err instanceof Error ? err.message : String(err) });
      return {};
    }
  }
}

function integer(value: unknown): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}
