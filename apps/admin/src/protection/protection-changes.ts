import { Inject, Injectable } from '@nestjs/common';
import {
  AdminErrors,
  DEFAULT_MAINTENANCE_MESSAGE,
  type EnforcedProtection,
  type MaintenanceSetting,
  type ProtectionChange,
  ProtectionEvents,
} from '@app/contracts';
import { type IpNetwork, MessageBus, parseIpNetwork } from '@app/infra';
import { AdminStore } from '../repositories/admin.store.js';
import type { MaintenanceRow } from '../repositories/protection.repository.js';
import { Clock } from '../services/clock.js';
import { RecordAuditEntry } from '../use-cases/record-audit-entry/record-audit-entry.usecase.js';

/**
 * What follows every change of maintenance mode or IP blocks (docs/api.md "Maintenance mode
 * and IP blocks"): stored here, enforced by every gateway. Each change is audited, announced
 * (ProtectionEvents.changed, to every gateway replica; the gateways also re-read the state every
 * second) and answered with the state after it (the gateway that forwarded it enforces that
 * before it answers).
 */
@Injectable()
export class ProtectionChanges {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(RecordAuditEntry) private readonly audit: RecordAuditEntry,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** The audit entry of a change and its announcement. */
  async changed(change: {
    auditActor: string;
    at: Date;
    action: string;
    targetType: string;
    targetId: string;
    before: object | null;
    after: object | null;
    revision: string;
  }): Promise<void> {
    await this.audit.execute({
      ts: change.at.toISOString(),
      domain: null,
      actor: change.auditActor,
      action: change.action,
      target_type: change.targetType,
      target_id: change.targetId,
      before: change.before as Record<string, unknown> | null,
      after: change.after as Record<string, unknown> | null,
    });
    this.bus.emit(ProtectionEvents.changed, { revision: change.revision });
  }

  /** A change's answer with the state after it (read after the change: its revision or a later one). */
  async answer<T>(result: T): Promise<ProtectionChange<T>> {
    return { result, protection: await this.enforced() };
  }

  /** What the gateways enforce now. */
  async enforced(): Promise<EnforcedProtection> {
    const { revision, maintenance, blocks } = await this.adminStore.repos.protection.enforced(this.clock.now());
    return { changed: true, revision, maintenance: maintenanceSetting(maintenance), blocks };
  }
}

/** The stored setting as the API shows it (message null: the default message). */
export function maintenanceSetting(row: MaintenanceRow): MaintenanceSetting {
  return { enabled: row.enabled, message: row.message ?? DEFAULT_MAINTENANCE_MESSAGE };
}

/** An address or network; 400 with what is wrong when the text is neither. */
export function parsedNetwork(input: string): IpNetwork {
  const network = parseIpNetwork(input);
  if ('error' in network) throw AdminErrors.ip_network_invalid({ reason: network.error });
  return network;
}
