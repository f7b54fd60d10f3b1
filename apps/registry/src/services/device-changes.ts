import { Inject, Injectable } from '@nestjs/common';
import { type CustomerId, RegistryEvents, type TenantRequestContext } from '@app/contracts';
import { MessageBus } from '@app/infra';
import type { OutboxRepository } from '@app/platform';

/**
 * What follows every committed change of devices: deviceChanged (broadcast: every cache of
 * device lookups drops the device, or all of the customer's devices when `hwid` is null) and
 * the audit entry (actor, action, target, before and after), written to the registry's outbox
 * (`outbox`: the transaction's own where the change has one) and relayed to the admin app.
 */
@Injectable()
export class DeviceChanges {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  deviceChanged(customerId: CustomerId, hwid: string | null): void {
    this.bus.emit(RegistryEvents.deviceChanged, { customerId, hwid });
  }

  async audit(
    outbox: OutboxRepository,
    ctx: TenantRequestContext,
    entry: { action: string; targetType: string; targetId: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null },
  ): Promise<void> {
    await outbox.audit({
      ts: new Date().toISOString(),
      domain: ctx.customer.domain,
      actor: ctx.auditActor,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId,
      before: entry.before,
      after: entry.after,
    });
  }
}
