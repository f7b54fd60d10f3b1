import { Inject, Injectable } from '@nestjs/common';
import { AdminEvents, FirmwareEvents, type RequestContext } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { BuildIndex } from '../update-check/build-index.js';

/**
 * What follows every change of builds: the update-check index of the customer is dropped
 * here at once and on every other replica (FirmwareEvents.changed, broadcast), and an audit
 * entry records who changed what (AdminEvents.audit, before and after).
 */
@Injectable()
export class FirmwareChanges {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(BuildIndex) private readonly index: BuildIndex,
  ) {}

  changed(customerId: string): void {
    this.index.invalidate(customerId);
    this.bus.emit(FirmwareEvents.changed, { customerId });
  }

  audit(
    ctx: RequestContext,
    action: string,
    target: { type: string; id: string },
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
  ): void {
    this.bus.emit(AdminEvents.audit, {
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
