import { Inject, Injectable } from '@nestjs/common';
import type { MaintenanceSetting } from '@app/contracts';
import { maintenanceSetting } from '../../protection/protection-changes.js';
import { AdminStore } from '../../repositories/admin.store.js';

/** GET /admin/maintenance (and the operator CLI). */
@Injectable()
export class GetMaintenance {
  constructor(@Inject(AdminStore) private readonly adminStore: AdminStore) {}

  async execute(): Promise<MaintenanceSetting> {
    return maintenanceSetting(await this.adminStore.repos.protection.maintenance());
  }
}
