import type { IpBlockView, MaintenanceSetting } from '@app/contracts';
import { createMessageBus, openAppDatabase, type ServiceConfig } from '@app/infra';
import { ADMIN_DATABASE } from '../admin.module.js';
import { AdminStore } from '../repositories/admin.store.js';
import { ProtectionChanges } from '../protection/protection-changes.js';
import { Clock } from '../services/clock.js';
import { GetMaintenance } from '../use-cases/get-maintenance/get-maintenance.usecase.js';
import { ListIpBlocksCommand } from '../use-cases/list-ip-blocks/list-ip-blocks.command.js';
import { ListIpBlocks } from '../use-cases/list-ip-blocks/list-ip-blocks.usecase.js';
import { RecordAuditEntry } from '../use-cases/record-audit-entry/record-audit-entry.usecase.js';
import { SetMaintenanceCommand } from '../use-cases/set-maintenance/set-maintenance.command.js';
import { SetMaintenance } from '../use-cases/set-maintenance/set-maintenance.usecase.js';
import { UnblockAddressCommand } from '../use-cases/unblock-address/unblock-address.command.js';
import { UnblockAddress } from '../use-cases/unblock-address/unblock-address.usecase.js';

/** Maintenance mode and IP blocks as the operator CLI changes them on the database. */
export interface OperatorProtection {
  maintenance(): Promise<MaintenanceSetting>;
  /** `message` null: the default message. */
  switchMaintenance(enabled: boolean, message: string | null): Promise<MaintenanceSetting>;
  /** Newest first; expired ones too when `all`. */
  listBlocks(all: boolean): Promise<IpBlockView[]>;
  /** The block removed. ServiceError 400 for a text that is no address or network, 404 when the network has no block. */
  liftBlock(cidr: string): Promise<IpBlockView>;
}

/**
 * For the operator CLI, in-process: maintenance mode and IP blocks straight on the admin
 * schema, with no message bus and no running admin app (the same use cases as the
 * admin endpoints: every change audited, here with `auditActor` as the actor). Gateways read
 * the state from the admin app once a second, so a running service applies a change within
 * about 2 s (the change is not announced: nobody in this process listens). Pending migrations
 * are not run, only warned about: the CLI does not change the schema under running apps.
 *
 *   await withOperatorProtection(loadConfig(), 'operator:cli:alice', (p) => p.switchMaintenance(false, null));
 */
export async function withOperatorProtection<T>(config: ServiceConfig, auditActor: string, work: (protection: OperatorProtection) => Promise<T>): Promise<T> {
  const dataSource = await openAppDatabase(config, { ...ADMIN_DATABASE, migrate: false });
  try {
    const store = new AdminStore(dataSource);
    const clock = new Clock();
    const changes = new ProtectionChanges(store, new RecordAuditEntry(store), createMessageBus({ ...config, natsUrl: null }, 'admin'), clock);
    const getMaintenance = new GetMaintenance(store);
    return await work({
      maintenance: () => getMaintenance.execute(),
      switchMaintenance: async (enabled, message) => {
        await new SetMaintenance(store, changes, clock).apply(SetMaintenanceCommand.of({ enabled, message }, auditActor, auditActor));
        return getMaintenance.execute();
      },
      listBlocks: async (all) => (await new ListIpBlocks(store, clock).execute(ListIpBlocksCommand.create({ query: { all } }))).items,
      liftBlock: (cidr) => new UnblockAddress(store, changes, clock).lift(UnblockAddressCommand.forOperator(cidr, auditActor)),
    });
  } finally {
    await dataSource.destroy();
  }
}
