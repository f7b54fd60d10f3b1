import { CUSTOMER_ERASURE_TIMEOUT_MS, type CustomerErased, type CustomerErasure } from '../messages/customer-erasure.js';
import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineEvent, defineMessage } from '../messages/message.js';
import type {
  CreateDeviceRequest,
  Device,
  DeviceCustomerQuery,
  DeviceImportQuery,
  DeviceImportResult,
  DevicePage,
  DeviceParams,
  DeviceTagParams,
  DeviceTags,
  UpdateDeviceRequest,
} from './registry.schemas.js';
import type { DeviceListQuery } from './device-list.schemas.js';
import type { FleetSummary, FleetSummaryQuery } from './fleet.schemas.js';
import type { NoParams } from '../schemas.js';

/**
 * What the firmware app's update check needs to know about a device: answered from an
 * index, cacheable, invalidated by `deviceChanged`. null: no such device.
 */
export interface DeviceLookupRequest {
  readonly customerId: string;
  readonly hwid: string;
}
/** Several devices of one customer at once (the update check's cache misses of one event-loop turn). */
export interface DeviceLookupBatchRequest {
  readonly customerId: string;
  /** At most MAX_DEVICE_LOOKUP_BATCH. */
  readonly hwids: readonly string[];
}
/** HW ids per lookupDevices request. */
export const MAX_DEVICE_LOOKUP_BATCH = 500;
export interface DeviceLookup {
  readonly status: 'active' | 'withdrawn';
  readonly tags: readonly string[];
  /** The device's rollout bucket (rolloutBucket(hwid)); absent from older registries: the device is in no rollout stage. */
  readonly bucket?: number;
}

export interface DeviceChanged {
  readonly customerId: string;
  /** null: many devices of the customer changed (import, tag rename/delete): drop them all. */
  readonly hwid: string | null;
}

/**
 * One update check that named a device: the product line and version it reported. The product
 * line and version key are absent in sightings of senders older than them (a rolling upgrade):
 * the registry then records the version only.
 */
export interface DeviceSeen {
  readonly customerId: string;
  readonly hwid: string;
  readonly fwVersion: string;
  readonly at: string;
  readonly hwName?: string;
  readonly hwVersion?: string;
  readonly fwName?: string;
  /** The firmware app's version order key of fwVersion, hex (compares bytewise like builds' version_key). */
  readonly versionKey?: string;
  /** Builds this check offered under a rollout (the registry records the first offer per device and rollout). */
  readonly offers?: readonly RolloutOffer[];
}

/** A build offered to a device under a rollout, in the stage that reached it. */
export interface RolloutOffer {
  readonly rolloutId: string;
  readonly buildId: string;
  /** The build's version order key, hex. */
  readonly versionKey: string;
  readonly stage: number;
}

/** Update checks that named a device, coalesced by the sender (one batch every few seconds). */
export interface DevicesSeen {
  readonly items: readonly DeviceSeen[];
}

/** A device as the update preview needs it: status, tags and what its last update check reported. */
export interface DeviceProfile {
  readonly status: 'active' | 'withdrawn';
  readonly tags: readonly string[];
  /** null: the device never checked in (or only before product lines were recorded: hwName null). */
  readonly lastSeen: {
    readonly at: string;
    readonly fwVersion: string;
    readonly hwName: string | null;
    readonly hwVersion: string | null;
    readonly fwName: string | null;
  } | null;
}

/**
 * The known, active devices a build is offered to by its rule (the firmware app decides the
 * rule; see AudienceRule): every one (`known_devices`) or those sharing one of `tags`
 * (`devices_sharing_tag`); counted among those whose last check named the product line with a
 * version whose key is below `versionKey`, and among those that never checked in.
 */
export interface DeviceAudienceRequest {
  readonly customerId: string;
  readonly tags: readonly string[] | null;
  readonly hwName: string;
  readonly hwVersion: string;
  readonly fwName: string;
  /** The build's version order key, hex. */
  readonly versionKey: string;
  readonly limit: number;
  readonly offset: number;
}
export interface DeviceAudience {
  readonly devices: number;
  readonly neverCheckedIn: number;
  /** `limit` devices from `offset` among `devices`, by HW id. */
  readonly items: readonly { readonly hwid: string; readonly lastFwVersion: string; readonly lastSeenAt: string }[];
}

export interface CustomerTagRequest {
  readonly customerId: string;
  readonly tag: string;
}
export interface CustomerTagRename {
  readonly customerId: string;
  readonly from: string;
  readonly to: string;
}
/** Number of devices (or builds) carrying each tag. */
export type TagCounts = Record<string, number>;

export const RegistryMessages = {
  lookupDevice: defineMessage<DeviceLookupRequest, DeviceLookup | null>('registry.devices.lookup', { timeoutMs: 2_000 }),
  /**
   * As lookupDevice for many HW ids of one customer with one indexed query; the answers in the
   * order of `hwids`. By reference: the batch and its answers are built for the message, and
   * the answers are cached as they are, never changed.
   */
  lookupDevices: defineMessage<DeviceLookupBatchRequest, (DeviceLookup | null)[]>('registry.devices.lookup-many', { timeoutMs: 2_000, byReference: true }),
  /** The update preview's view of one device; null: no such device. */
  deviceProfile: defineMessage<DeviceLookupRequest, DeviceProfile | null>('registry.devices.profile'),
  /** A build's audience among the customer's devices (GET /firmware/{id}/audience), from indexes. */
  audience: defineMessage<DeviceAudienceRequest, DeviceAudience>('registry.devices.audience', { timeoutMs: 30_000 }),
  /** Tags API (owned by firmware's tags use cases): counts, rename with merge, delete. Idempotent. */
  tagCounts: defineMessage<{ readonly customerId: string }, TagCounts>('registry.tags.counts'),
  renameTag: defineMessage<CustomerTagRename, { readonly devices: number }>('registry.tags.rename', { timeoutMs: 60_000 }),
  deleteTag: defineMessage<CustomerTagRequest, { readonly devices: number }>('registry.tags.delete', { timeoutMs: 60_000 }),
  /** Per-customer device counts and distinct tags, for the admin customer list. */
  counts: defineMessage<{ readonly customerIds: readonly string[] }, Record<string, { readonly devices: number; readonly tags: readonly string[] }>>(
    'registry.counts',
  ),
  /** Identity deletes a customer: every row and stored file of it in this app goes (idempotent). */
  eraseCustomer: defineMessage<CustomerErasure, CustomerErased>('registry.erase-customer', { timeoutMs: CUSTOMER_ERASURE_TIMEOUT_MS }),
} as const;

export const RegistryEvents = {
  /** A device's status or tags changed: every replica caching lookups drops the entry. */
  deviceChanged: defineEvent<DeviceChanged>('registry.device-changed', 'broadcast'),
  /** last_seen_at / last_fw_version updates from update checks, batched. */
  devicesSeen: defineEvent<DevicesSeen>('registry.devices-seen', 'queue', { byReference: true }),
} as const;

type DeviceCall<Body = undefined> = EndpointCall<DeviceParams, DeviceCustomerQuery, Body>;

/** The Devices endpoints (registry.endpoints.ts), answered by the registry app. */
export const DeviceMessages = {
  list: defineMessage<EndpointCall<NoParams, DeviceListQuery, undefined>, DevicePage>('registry.devices.list'),
  get: defineMessage<DeviceCall, Device>('registry.devices.get'),
  create: defineMessage<EndpointCall<NoParams, DeviceCustomerQuery, CreateDeviceRequest>, Device>('registry.devices.create'),
  update: defineMessage<DeviceCall<UpdateDeviceRequest>, Device>('registry.devices.update'),
  /** The body is staged in the object store by the gateway (`file`); 100,000 rows take seconds. */
  import: defineMessage<EndpointCall<NoParams, DeviceImportQuery, undefined>, DeviceImportResult>('registry.devices.import', { timeoutMs: 600_000 }),
  withdraw: defineMessage<DeviceCall, Device>('registry.devices.withdraw'),
  reactivate: defineMessage<DeviceCall, Device>('registry.devices.reactivate'),
  getTags: defineMessage<DeviceCall, DeviceTags>('registry.devices.tags.get'),
  replaceTags: defineMessage<DeviceCall<DeviceTags>, DeviceTags>('registry.devices.tags.replace'),
  addTag: defineMessage<EndpointCall<DeviceTagParams, DeviceCustomerQuery, undefined>, void>('registry.devices.tags.add'),
  removeTag: defineMessage<EndpointCall<DeviceTagParams, DeviceCustomerQuery, undefined>, void>('registry.devices.tags.remove'),
  /** GET /fleet/summary. */
  summary: defineMessage<EndpointCall<NoParams, FleetSummaryQuery, undefined>, FleetSummary>('registry.fleet.summary', { timeoutMs: 30_000 }),
} as const;
