import { Inject, Injectable } from '@nestjs/common';
import { AdminEvents, type CustomerId, RegistryEvents, type TenantRequestContext } from '@app/contracts';
import { MessageBus } from '@app/infra';

/**
 * What follows every committed change of devices: deviceChanged (broadcast: every cache of
 * device lookups drops the device, or all of the customer's devices when `hwid` is null) and
 * the audit entry (actor, action, target, before and after).
 */
@Injectable()
export class DeviceChanges {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  deviceChanged(customerId: CustomerId, hwid: string | null): void {
    this.bus.emit(RegistryEvents.deviceChanged, { customerId, hwid });
  }

  audit(
    ctx: TenantRequestContext,
    entry: { action: string; targetType: string; targetId: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null },
  ): void {
    this.bus.emit(AdminEvents.audit, {
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
