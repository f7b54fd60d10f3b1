import { defineEvent, defineMessage } from '../messages/message.js';

/**
 * What the firmware app's update check needs to know about a device: answered from an
 * index, cacheable, invalidated by `deviceChanged`. null: no such device.
 */
export interface DeviceLookupRequest {
  readonly customerId: string;
  readonly hwid: string;
}
export interface DeviceLookup {
  readonly status: 'active' | 'withdrawn';
  readonly tags: readonly string[];
}

export interface DeviceChanged {
  readonly customerId: string;
  /** null: many devices of the customer changed (import, tag rename/delete): drop them all. */
  readonly hwid: string | null;
}

/** Update checks that named a device, coalesced by the sender (one batch every few seconds). */
export interface DevicesSeen {
  readonly items: readonly { readonly customerId: string; readonly hwid: string; readonly fwVersion: string; readonly at: string }[];
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
  /** Tags API (owned by firmware's tags use cases): counts, rename with merge, delete. Idempotent. */
  tagCounts: defineMessage<{ readonly customerId: string }, TagCounts>('registry.tags.counts'),
  renameTag: defineMessage<CustomerTagRename, { readonly devices: number }>('registry.tags.rename', { timeoutMs: 60_000 }),
  deleteTag: defineMessage<CustomerTagRequest, { readonly devices: number }>('registry.tags.delete', { timeoutMs: 60_000 }),
  /** Per-customer device counts and distinct tags, for the admin customer list. */
  counts: defineMessage<{ readonly customerIds: readonly string[] }, Record<string, { readonly devices: number; readonly tags: readonly string[] }>>('registry.counts'),
} as const;

export const RegistryEvents = {
  /** A device's status or tags changed: every replica caching lookups drops the entry. */
  deviceChanged: defineEvent<DeviceChanged>('registry.device-changed', 'broadcast'),
  /** last_seen_at / last_fw_version updates from update checks, batched. */
  devicesSeen: defineEvent<DevicesSeen>('registry.devices-seen', 'queue'),
} as const;
