import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import {
  AppDataEvents,
  type DeviceAudience,
  type DeviceAudienceRequest,
  type DeviceChanged,
  type DeviceLookup,
  type DeviceProfile,
  isHwid,
  MAX_DEVICE_LOOKUP_BATCH,
  RegistryEvents,
  RegistryMessages,
} from '@app/contracts';
import { MessageBus } from '@app/infra';
import { BatchLoader } from './batch-loader.js';
import { GroupedTtlCache } from './ttl-cache.js';

export interface DeviceDirectoryOptions {
  /** How long an answer (also "no such device") is trusted without an invalidation event. */
  readonly ttlMs?: number;
  readonly maxEntries?: number;
}
export const DEVICE_DIRECTORY_OPTIONS = Symbol('DeviceDirectoryOptions');

/**
 * Changes reach the cache by the deviceChanged broadcast at once; the TTL only heals a lost
 * event (events are at most once). Five minutes: a device that polls more often than that asks
 * the registry once per five minutes, not once per 30 s (with 30 s, re-asking after each
 * expiry cost the standalone several per cent of its CPU in bench:update-check, and real fleets
 * rarely poll faster than every minute).
 */
export const DEVICE_DIRECTORY_DEFAULTS = { ttlMs: 300_000, maxEntries: 100_000 } as const;

/**
 * The registry's device lookup (status and tags of one device), for the update check: answers
 * from a bounded TTL cache; the misses of one event-loop turn go to the registry app together,
 * one RegistryMessages.lookupDevices per customer (one indexed query for up to
 * MAX_DEVICE_LOOKUP_BATCH devices), and concurrent misses of the same device share one slot.
 * Batched because a fleet polling less often than the TTL misses on nearly every check
 * (bench:devices, over NATS: 32 misses at once resolve about 27,000 devices/s this way, about
 * 5,200/s with one message and one query per device).
 *
 * Invalidation: the registry broadcasts RegistryEvents.deviceChanged after every change of a
 * device's existence, status or tags; the entry of that device is dropped, or every entry of
 * the customer when `hwid` is null (import, tag rename or delete): the cache is grouped by
 * customer, which makes that O(1) (and the lookup needs no joined key), and a lookup in flight
 * during an invalidation is not cached. Events are at most once: a lost one is healed by the TTL.
 *
 * Errors of the registry (down, timeout: ServiceError Unavailable) are not cached and reach the
 * caller, who decides (the update check may answer as for an unknown device).
 */
@Injectable()
export class DeviceDirectory implements OnModuleInit, OnModuleDestroy {
  private readonly cache: GroupedTtlCache<string, string, DeviceLookup | null>;
  private readonly registry: BatchLoader<string, string, DeviceLookup | null>;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Optional() @Inject(DEVICE_DIRECTORY_OPTIONS) options?: DeviceDirectoryOptions,
  ) {
    this.cache = new GroupedTtlCache(options?.maxEntries ?? DEVICE_DIRECTORY_DEFAULTS.maxEntries, options?.ttlMs ?? DEVICE_DIRECTORY_DEFAULTS.ttlMs);
    this.registry = new BatchLoader((customerId, hwids) => this.bus.send(RegistryMessages.lookupDevices, { customerId, hwids }), MAX_DEVICE_LOOKUP_BATCH);
  }

  onModuleInit(): void {
    this.unsubscribe.push(
      this.bus.subscribe(RegistryEvents.deviceChanged, (event) => this.invalidate(event)),
      // A restore replaced every device: every entry goes (and no lookup in flight is kept).
      this.bus.subscribe(AppDataEvents.replaced('registry'), () => this.cache.clear()),
    );
  }

  onModuleDestroy(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  /** Status and tags of the device, or null when the customer has no device with this HW id; a cached answer comes back as it is. */
  lookup(customerId: string, hwid: string): DeviceLookup | null | Promise<DeviceLookup | null> {
    if (!isHwid(hwid)) return null; // no device can have it: no need to ask
    return this.cache.valueOrLoad(customerId, hwid, () => this.registry.load(customerId, hwid));
  }

  /** The device with what its last update check reported (the update preview: asked each time, not cached); null when unknown. */
  profile(customerId: string, hwid: string): Promise<DeviceProfile | null> {
    return this.bus.send(RegistryMessages.deviceProfile, { customerId, hwid });
  }

  /** The devices a build's audience rule selects, counted and paged by the registry (not cached). */
  audience(request: DeviceAudienceRequest): Promise<DeviceAudience> {
    return this.bus.send(RegistryMessages.audience, request);
  }

  /** What a deviceChanged event does; public for callers that learn of a change otherwise. */
  invalidate(event: DeviceChanged): void {
    if (!event || typeof event.customerId !== 'string') return;
    if (event.hwid === null || event.hwid === undefined) this.cache.deleteGroup(event.customerId);
    else this.cache.delete(event.customerId, event.hwid);
  }

  get size(): number {
    return this.cache.size;
  }
}
