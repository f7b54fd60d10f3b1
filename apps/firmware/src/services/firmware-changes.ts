import { Inject, Injectable } from '@nestjs/common';
import { FirmwareEvents, type RequestContext } from '@app/contracts';
import { MessageBus } from '@app/infra';
import type { OutboxRepository } from '@app/platform';
import { FirmwareStore } from '../repositories/firmware.store.js';
import { BuildIndex } from '../update-check/build-index.js';

/**
 * What follows every change of builds: the update-check index of the customer is dropped
 * here at once and on every other replica (FirmwareEvents.changed, broadcast), and an audit
 * entry records who changed what (before and after), written to the firmware outbox (`outbox`:
 * a transaction's own, else right after the change) and relayed to the admin app.
 */
@Injectable()
export class FirmwareChanges {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(BuildIndex) private readonly index: BuildIndex,
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
  ) {}

  changed(customerId: string): void {
    this.index.invalidate(customerId);
    this.bus.emit(FirmwareEvents.changed, { customerId });
  }

  async audit(
    ctx: RequestContext,
    action: string,
    target: { type: string; id: string },
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
    outbox: OutboxRepository = this.store.repos.outbox,
  ): Promise<void> {
    await outbox.audit({
      ts: new Date().toISOString(),
      domain: ctx.customer?.domain ?? null,
      actor: ctx.auditActor,
      action,
      target_type: target.type,
      target_id: target.id,
      before,
      after,
    });
  }
}
