import { Inject, Injectable } from '@nestjs/common';
import {
  AdminErrors,
  type CreatedIpBlock,
  type CreateIpBlockRequest,
  DEFAULT_MAINTENANCE_MESSAGE,
  type DeleteIpBlockQuery,
  type EndpointCall,
  type EnforcedProtection,
  type IpBlocksQuery,
  type IpBlockView,
  type MaintenanceSetting,
  type NoParams,
  type ProtectionChange,
  ProtectionEvents,
  type ProtectionState,
  type UpdateMaintenanceRequest,
} from '@app/contracts';
import { type IpNetwork, MessageBus, networkContains, parseIpNetwork } from '@app/infra';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../services/clock.js';
import { blockView, type IpBlockRow, type MaintenanceRow } from '../repositories/protection.repository.js';
import { AdminStore } from '../repositories/admin.store.js';

/**
 * Maintenance mode and IP blocks (docs/api.md "Maintenance mode and IP blocks"): stored here,
 * enforced by every gateway. Each change is audited, answered with the state after it (the
 * gateway that forwarded it enforces that before it answers) and announced
 * (ProtectionEvents.changed, to every gateway replica); the gateways also re-read the state
 * every second.
 */
@Injectable()
export class ProtectionService {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(AuditService) private readonly audit: AuditService,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async maintenance(): Promise<MaintenanceSetting> {
    return setting(await this.adminStore.repos.protection.maintenance());
  }

  async setMaintenance(call: EndpointCall<NoParams, NoParams, UpdateMaintenanceRequest>): Promise<ProtectionChange<MaintenanceSetting>> {
    const after = await this.switchMaintenance({ enabled: call.body.enabled, message: call.body.message?.trim() || null }, call.ctx.actor);
    return this.changed(setting(after));
  }

  /** The stored setting (message null: the default), as a restore remembers it to put it back. */
  maintenanceRow(): Promise<MaintenanceRow> {
    return this.adminStore.repos.protection.maintenance();
  }

  /**
   * Sets maintenance for `actor` (an administrator, or a restore acting for one): audited and
   * announced like the endpoint. `auditActor`: the audit entry's actor (the operator CLI names itself).
   */
  async switchMaintenance(value: MaintenanceRow, actor: string, auditActor = `admin:${actor}`): Promise<MaintenanceRow> {
    const now = this.clock.now();
    const { before, after, revision } = await this.adminStore.transaction((repos) => repos.protection.setMaintenance(value, actor, now));
    await this.record(auditActor, now, 'maintenance.update', 'maintenance', 'maintenance', setting(before), setting(after));
    this.bus.emit(ProtectionEvents.changed, { revision });
    return after;
  }

  async listBlocks(call: EndpointCall<NoParams, IpBlocksQuery, undefined>): Promise<{ items: IpBlockView[] }> {
    return { items: await this.adminStore.repos.protection.listBlocks(call.query?.all === true, this.clock.now()) };
  }

  /**
   * A network blocked again replaces its block (reason, expiry, created_by, created_at): 201
   * either way. A network that covers the caller's own address is refused (409) unless the
   * request confirms it: an administrator would lock themselves out, the console included.
   */
  async createBlock(call: EndpointCall<NoParams, NoParams, CreateIpBlockRequest>): Promise<ProtectionChange<CreatedIpBlock>> {
    const network = parsedNetwork(call.body.cidr);
    const cidr = network.cidr;
    if (call.body.confirm_own_address !== true && networkContains(network, call.ctx.ip)) throw AdminErrors.ip_block_own_address({ cidr, address: call.ctx.ip });
    const now = this.clock.now();
    const ttl = call.body.ttl_seconds;
    const block: IpBlockRow = {
      cidr,
      reason: call.body.reason?.trim() || null,
      createdBy: call.ctx.actor,
      createdAt: now,
      expiresAt: ttl === undefined ? null : new Date(now.getTime() + ttl * 1000),
    };
    const { before, revision } = await this.adminStore.transaction((repos) => repos.protection.putBlock(block));
    const after = blockView(block);
    await this.record(`admin:${call.ctx.actor}`, now, 'ip_block.create', 'ip_block', cidr, before ? blockView(before) : null, after);
    this.bus.emit(ProtectionEvents.changed, { revision });
    return this.changed({ cidr, expires_at: after.expires_at, reason: after.reason });
  }

  async deleteBlock(call: EndpointCall<NoParams, DeleteIpBlockQuery, undefined>): Promise<ProtectionChange<null>> {
    await this.liftBlock(call.query.cidr, `admin:${call.ctx.actor}`);
    return this.changed(null);
  }

  /** Removes the block of a network (404 when there is none), audited with `auditActor` and announced; returns the block removed. */
  async liftBlock(input: string, auditActor: string): Promise<IpBlockView> {
    const cidr = normalisedCidr(input);
    const removed = await this.adminStore.transaction((repos) => repos.protection.deleteBlock(cidr));
    if (!removed) throw AdminErrors.ip_block_not_found({ cidr });
    const before = blockView(removed.before);
    await this.record(auditActor, this.clock.now(), 'ip_block.delete', 'ip_block', cidr, before, null);
    this.bus.emit(ProtectionEvents.changed, { revision: removed.revision });
    return before;
  }

  /** What the gateways enforce; nothing but the revision when theirs is current. */
  async state(knownRevision: string | null): Promise<ProtectionState> {
    if (knownRevision !== null && (await this.adminStore.repos.protection.revision()) === knownRevision) return { changed: false, revision: knownRevision };
    return this.enforced();
  }

  private async enforced(): Promise<EnforcedProtection> {
    const { revision, maintenance, blocks } = await this.adminStore.repos.protection.enforced(this.clock.now());
    return { changed: true, revision, maintenance: setting(maintenance), blocks };
  }

  /** A change's answer with the state after it (read after the change: its revision or a later one). */
  private async changed<T>(result: T): Promise<ProtectionChange<T>> {
    return { result, protection: await this.enforced() };
  }

  private record(
    auditActor: string,
    now: Date,
    action: string,
    targetType: string,
    targetId: string,
    before: object | null,
    after: object | null,
  ): Promise<boolean> {
    return this.audit.store({
      ts: now.toISOString(),
      domain: null,
      actor: auditActor,
      action,
      target_type: targetType,
      target_id: targetId,
      before: before as Record<string, unknown> | null,
      after: after as Record<string, unknown> | null,
    });
  }
}

function setting(row: MaintenanceRow): MaintenanceSetting {
  return { enabled: row.enabled, message: row.message ?? DEFAULT_MAINTENANCE_MESSAGE };
}

/** 400 with what is wrong when the text is no address or network. */
export function normalisedCidr(input: string): string {
  return parsedNetwork(input).cidr;
}

function parsedNetwork(input: string): IpNetwork {
  const network = parseIpNetwork(input);
  if ('error' in network) throw AdminErrors.ip_network_invalid({ reason: network.error });
  return network;
}
