import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineEvent, defineMessage } from '../messages/message.js';
import type {
  CreatedIpBlock,
  CreateIpBlockRequest,
  DeleteIpBlockQuery,
  IpBlocksQuery,
  IpBlockView,
  MaintenanceSetting,
  UpdateMaintenanceRequest,
} from './protection.schemas.js';
import type { NoParams } from '../schemas.js';

/** An active block as the gateways enforce it (expires_at null: permanent). */
export interface EnforcedIpBlock {
  readonly cidr: string;
  readonly expires_at: string | null;
}

/**
 * What every gateway enforces: maintenance and the active IP blocks. `revision` changes with
 * every change of either; asked with the revision it knows, a gateway gets `changed: false`
 * and nothing else when nothing changed (the periodic re-read stays cheap with many blocks).
 */
export type ProtectionState = EnforcedProtection | { readonly changed: false; readonly revision: string };

/** The whole state at a revision (revisions are increasing integers, as decimal text). */
export interface EnforcedProtection {
  readonly changed: true;
  readonly revision: string;
  readonly maintenance: MaintenanceSetting;
  readonly blocks: readonly EnforcedIpBlock[];
}

/**
 * The reply to a change of maintenance or the IP blocks: the endpoint's answer and the state
 * after the change, which the gateway that forwarded it enforces before it answers.
 */
export interface ProtectionChange<T> {
  readonly result: T;
  readonly protection: EnforcedProtection;
}

export const ProtectionMessages = {
  getMaintenance: defineMessage<EndpointCall<NoParams, NoParams, undefined>, MaintenanceSetting>('admin.maintenance.get'),
  updateMaintenance: defineMessage<EndpointCall<NoParams, NoParams, UpdateMaintenanceRequest>, ProtectionChange<MaintenanceSetting>>(
    'admin.maintenance.update',
  ),
  listIpBlocks: defineMessage<EndpointCall<NoParams, IpBlocksQuery, undefined>, { items: IpBlockView[] }>('admin.ip-blocks.list'),
  createIpBlock: defineMessage<EndpointCall<NoParams, NoParams, CreateIpBlockRequest>, ProtectionChange<CreatedIpBlock>>('admin.ip-blocks.create'),
  deleteIpBlock: defineMessage<EndpointCall<NoParams, DeleteIpBlockQuery, undefined>, ProtectionChange<null>>('admin.ip-blocks.delete'),
  /** Gateways re-read this every second (and at once on ProtectionEvents.changed). */
  protectionState: defineMessage<{ readonly knownRevision: string | null }, ProtectionState>('admin.protection.state'),
} as const;

export const ProtectionEvents = {
  /** Maintenance or the IP blocks changed: every gateway replica re-reads the state. */
  changed: defineEvent<{ readonly revision: string }>('admin.protection.changed', 'broadcast'),
} as const;
