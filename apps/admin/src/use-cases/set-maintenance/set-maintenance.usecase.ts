import { Inject, Injectable } from '@nestjs/common';
import type { MaintenanceSetting, ProtectionChange } from '@app/contracts';
import { maintenanceSetting, ProtectionChanges } from '../../protection/protection-changes.js';
import { AdminStore } from '../../repositories/admin.store.js';
import type { MaintenanceRow } from '../../repositories/protection.repository.js';
import { Clock } from '../../services/clock.js';
import type { SetMaintenanceCommand } from './set-maintenance.command.js';

/** Switches maintenance mode: stored, audited and announced (ProtectionChanges). */
@Injectable()
export class SetMaintenance {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(ProtectionChanges) private readonly changes: ProtectionChanges,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** PUT /admin/maintenance: answered with the state after the change. */
  async execute(command: SetMaintenanceCommand): Promise<ProtectionChange<MaintenanceSetting>> {
    return this.changes.answer(maintenanceSetting(await this.apply(command)));
  }

  /** The change alone (a restore, the operator CLI): the stored setting after it. */
  async apply(command: SetMaintenanceCommand): Promise<MaintenanceRow> {
    const at = this.clock.now();
    const { before, after, revision } = await this.adminStore.transaction((repos) => repos.protection.setMaintenance(command.value, command.actor, at));
    await this.changes.changed({
      auditActor: command.auditActor,
      at,
      action: 'maintenance.update',
      targetType: 'maintenance',
      targetId: 'maintenance',
      before: maintenanceSetting(before),
      after: maintenanceSetting(after),
      revision,
    });
    return after;
  }
}
