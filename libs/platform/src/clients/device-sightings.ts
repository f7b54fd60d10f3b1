import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { type DevicesSeen, isHwid, RegistryEvents } from '@app/contracts';
import { MessageBus } from '@app/infra';

export interface DeviceSightingsOptions {
  /** How often collected sightings are sent. */
  readonly intervalMs?: number;
  /** Items per devicesSeen event. */
  readonly batchSize?: number;
  /** Devices held before an early flush (bounds memory between two ticks). */
  readonly maxPending?: number;
}
export const DEVICE_SIGHTINGS_OPTIONS = Symbol('DeviceSightingsOptions');

export const DEVICE_SIGHTINGS_DEFAULTS = { intervalMs: 5_000, batchSize: 1_000, maxPending: 50_000 } as const;

/** Longest fw_version kept (longer ones are cut). */
const MAX_FW_VERSION = 255;

type Sighting = DevicesSeen['items'][number];

/**
 * Update checks that name a device record here that it was seen (customer, HW id, firmware
 * version, time): in memory, one entry per device (the latest wins), sent to the registry as
 * RegistryEvents.devicesSeen every ~5 s in batches, and when the module shuts down. The registry
 * applies each batch with one UPDATE, so a device checking every minute costs no database write
 * per check. At most once: a lost batch only delays last_seen_at until the next check.
 */
@Injectable()
export class DeviceSightings implements OnModuleInit, OnModuleDestroy {
  private pending = new Map<string, Sighting>();
  private timer?: NodeJS.Timeout;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly maxPending: number;

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Optional() @Inject(DEVICE_SIGHTINGS_OPTIONS) options?: DeviceSightingsOptions,
  ) {
    this.intervalMs = options?.intervalMs ?? DEVICE_SIGHTINGS_DEFAULTS.intervalMs;
    this.batchSize = Math.max(1, options?.batchSize ?? DEVICE_SIGHTINGS_DEFAULTS.batchSize);
    this.maxPending = Math.max(1, options?.maxPending ?? DEVICE_SIGHTINGS_DEFAULTS.maxPending);
  }

  onModuleInit(): void {
    this.timer = setInterval(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.flush();
  }

  /** Notes one update check of a device. Invalid HW ids are ignored (no device can have them). */
  record(customerId: string, hwid: string, fwVersion: string, at: Date = new Date()): void {
    if (!isHwid(hwid) || typeof customerId !== 'string' || typeof fwVersion !== 'string') return;
    const key = `${customerId}\u0000${hwid}`;
    const time = at.toISOString();
    const previous = this.pending.get(key);
    if (previous && previous.at > time) return; // a later check of the same device is already held
    this.pending.delete(key); // re-insert: the map stays in arrival order
    this.pending.set(key, { customerId, hwid, fwVersion: fwVersion.slice(0, MAX_FW_VERSION), at: time });
    if (this.pending.size >= this.maxPending) this.flush();
  }

  /** Sends everything held now; returns the number of sightings sent. */
  flush(): number {
    if (this.pending.size === 0) return 0;
    const items = [...this.pending.values()];
    this.pending = new Map();
    for (let i = 0; i < items.length; i += this.batchSize) {
      this.bus.emit(RegistryEvents.devicesSeen, { items: items.slice(i, i + this.batchSize) });
    }
    return items.length;
  }

  get size(): number {
    return this.pending.size;
  }
}
