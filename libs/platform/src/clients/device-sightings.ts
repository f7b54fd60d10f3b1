import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { type DevicesSeen, isHwid, RegistryEvents, type RolloutOffer } from '@app/contracts';
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

/** The product line an update check named (its path parameters). */
export interface SightedLine {
  readonly hw_name: string;
  readonly hw_version: string;
  readonly fw_name: string;
}

/** As held until sent: the time as epoch milliseconds and the key as latin1 text (both converted once, when sent). */
interface Held {
  readonly customerId: string;
  readonly hwid: string;
  fwVersion: string;
  at: number;
  line: SightedLine | undefined;
  versionKey: string | undefined;
  /** Rollout builds offered to the device since the last flush (the registry keeps each rollout's first offer). */
  offers: RolloutOffer[] | undefined;
}

/**
 * Update checks that name a device record here that it was seen (customer, HW id, firmware
 * version, time): in memory, one entry per device (the latest wins), sent to the registry as
 * RegistryEvents.devicesSeen every ~5 s in batches, and when the module shuts down. The registry
 * applies each batch with one UPDATE, so a device checking every minute costs no database write
 * per check. At most once: a lost batch only delays last_seen_at until the next check.
 */
@Injectable()
export class DeviceSightings implements OnModuleInit, OnModuleDestroy {
  /** By customer, then HW id (no joined key built per check: see GroupedTtlCache). */
  private pending = new Map<string, Map<string, Held>>();
  private pendingCount = 0;
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
    this.timer = setInterval(() => this.flush({ spread: true }), this.intervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.flush();
  }

  /**
   * Notes one update check of a device: its version, and the product line it named with the
   * version's order key (versionOrderKey of the firmware app, a latin1 string) when given.
   * Invalid HW ids are ignored (no device can have them). The line is kept by reference (the
   * check's own parameters: nothing is copied per check).
   */
  record(
    customerId: string,
    hwid: string,
    fwVersion: string,
    at: Date | number = Date.now(),
    line?: SightedLine,
    versionKey?: string,
    offers?: readonly RolloutOffer[],
  ): void {
    if (typeof customerId !== 'string' || typeof fwVersion !== 'string' || !isHwid(hwid)) return;
    const time = typeof at === 'number' ? at : at.getTime();
    let devices = this.pending.get(customerId);
    if (!devices) this.pending.set(customerId, (devices = new Map<string, Held>()));
    const previous = devices.get(hwid);
    if (previous) {
      // Updated in place (a device checking often costs no new entry); an older check arriving late does not win.
      if (previous.at <= time) {
        previous.fwVersion = fwVersion.slice(0, MAX_FW_VERSION);
        previous.at = time;
        previous.line = line;
        previous.versionKey = versionKey;
      }
      if (offers) previous.offers = mergeOffers(previous.offers, offers);
      return;
    }
    devices.set(hwid, {
      customerId,
      hwid,
      fwVersion: fwVersion.slice(0, MAX_FW_VERSION),
      at: time,
      line,
      versionKey,
      offers: offers ? [...offers] : undefined,
    });
    if (++this.pendingCount >= this.maxPending) this.flush();
  }

  /**
   * Sends everything held; returns the number of sightings sent. `spread`: one batch per turn
   * of the event loop (the periodic flush), so that a receiver in the same process (the
   * standalone registry) does not hold the loop for all batches at once; otherwise all now.
   */
  flush(options: { spread?: boolean } = {}): number {
    if (this.pendingCount === 0) return 0;
    const items: Sighting[] = [];
    for (const devices of this.pending.values()) {
      for (const held of devices.values()) items.push(toSighting(held));
    }
    this.pending = new Map();
    this.pendingCount = 0;
    const send = (from: number): void => {
      for (let i = from; i < items.length; i += this.batchSize) {
        this.bus.emit(RegistryEvents.devicesSeen, { items: items.slice(i, i + this.batchSize) });
        if (options.spread && i + this.batchSize < items.length) {
          setImmediate(() => send(i + this.batchSize));
          return;
        }
      }
    };
    send(0);
    return items.length;
  }

  get size(): number {
    return this.pendingCount;
  }
}

/** The offers held plus new ones, one per rollout (the first kept: the registry keeps the first offer anyway). */
function mergeOffers(held: RolloutOffer[] | undefined, offers: readonly RolloutOffer[]): RolloutOffer[] {
  const merged = held ?? [];
  for (const offer of offers) if (!merged.some((o) => o.rolloutId === offer.rolloutId)) merged.push(offer);
  return merged;
}

function toSighting(held: Held): Sighting {
  const sighting: { -readonly [K in keyof Sighting]: Sighting[K] } = {
    customerId: held.customerId,
    hwid: held.hwid,
    fwVersion: held.fwVersion,
    at: new Date(held.at).toISOString(),
  };
  if (held.offers?.length) sighting.offers = held.offers;
  if (!held.line || held.versionKey === undefined) return sighting;
  return {
    ...sighting,
    hwName: held.line.hw_name,
    hwVersion: held.line.hw_version,
    fwName: held.line.fw_name,
    versionKey: Buffer.from(held.versionKey, 'latin1').toString('hex'),
  };
}
