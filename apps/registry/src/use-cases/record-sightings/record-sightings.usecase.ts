import { Inject, Injectable } from '@nestjs/common';
import { type CustomerId, type DevicesSeen, isHwid } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { DeviceRepository, type Sighting } from '../../repositories/device.repository.js';
import { customerIdOf } from '../customer-tags/customer-tags.command.js';

/** Sightings per UPDATE statement. */
const CHUNK = 1000;
const MAX_FW_VERSION = 255;
/** Sightings received but not yet applied, at most; a batch beyond it is dropped (and logged). */
export const MAX_WAITING_SIGHTINGS = 100_000;

/**
 * RegistryEvents.devicesSeen (batches from DeviceSightings in the apps answering update
 * checks): one UPDATE per customer and up to 1000 devices, in customer and HW id order so that
 * concurrent batches lock rows in the same order. Malformed items are dropped (and logged once
 * per batch); unknown devices are ignored by the UPDATE.
 *
 * One event is applied at a time in a process: PostgreSQL spends about 20-25 µs per row on
 * these UPDATEs (random rows of a large table), and the batches of all the update-check apps
 * arrive together every few seconds. Applied at once, they took every core for tens of ms, and
 * the update checks answered in the same process waited for them (bench:update-check, p99 of
 * the standalone at 1,000 checks/s: 9-44 ms so, 3.5-5.3 ms one at a time, 2.3-2.5 ms without
 * sightings). What waits is bounded by
 * MAX_WAITING_SIGHTINGS; past it a batch is dropped, which only delays last_seen_at (sightings
 * are at most once anyway).
 */
@Injectable()
export class RecordSightings {
  private readonly logger = new JsonLogger('registry');
  /** The event being applied, or a settled promise. */
  private previous: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(@Inject(DeviceRepository) private readonly repository: DeviceRepository) {}

  /** Returns the devices changed (0 for a dropped batch). */
  async execute(event: DevicesSeen): Promise<number> {
    const byCustomer = latestByCustomer(event, (dropped) => this.logger.warn('ignored malformed items of registry.devices-seen', { dropped }));
    let count = 0;
    for (const sightings of byCustomer.values()) count += sightings.length;
    if (count === 0) return 0;
    if (this.waiting + count > MAX_WAITING_SIGHTINGS) {
      this.logger.warn('dropped a batch of registry.devices-seen: too many sightings waiting', { sightings: count, waiting: this.waiting });
      return 0;
    }
    this.waiting += count;
    const applied = this.previous.then(() => this.apply(byCustomer));
    this.previous = applied.catch(() => undefined);
    try {
      return await applied;
    } finally {
      this.waiting -= count;
    }
  }

  private async apply(byCustomer: Map<CustomerId, Sighting[]>): Promise<number> {
    let changed = 0;
    for (const customerId of [...byCustomer.keys()].sort()) {
      const sightings = byCustomer.get(customerId)!.sort((a, b) => (a.hwid < b.hwid ? -1 : a.hwid > b.hwid ? 1 : 0));
      for (let i = 0; i < sightings.length; i += CHUNK) changed += await this.repository.recordSightings({ customerId, sightings: sightings.slice(i, i + CHUNK) });
    }
    return changed;
  }
}

/** The valid items of an event, the latest per device, by customer. */
function latestByCustomer(event: DevicesSeen, onDropped: (dropped: number) => void): Map<CustomerId, Sighting[]> {
  const latest = new Map<CustomerId, Map<string, Sighting>>();
  let dropped = 0;
  // Validated once per distinct customer id text (a batch is mostly one or a few customers).
  const customers = new Map<unknown, CustomerId | null>();
  for (const item of Array.isArray(event?.items) ? (event.items as unknown[]) : []) {
    const parsed = parseItem(item, customers);
    if (!parsed) {
      dropped++;
      continue;
    }
    let devices = latest.get(parsed.customerId);
    if (!devices) latest.set(parsed.customerId, (devices = new Map()));
    const previous = devices.get(parsed.sighting.hwid);
    if (!previous || previous.at <= parsed.sighting.at) devices.set(parsed.sighting.hwid, parsed.sighting);
  }
  if (dropped) onDropped(dropped);
  return new Map([...latest].map(([customerId, devices]) => [customerId, [...devices.values()]]));
}

function parseItem(item: unknown, customers: Map<unknown, CustomerId | null>): { customerId: CustomerId; sighting: Sighting } | null {
  if (!item || typeof item !== 'object') return null;
  const { customerId: rawCustomerId, hwid, fwVersion, at } = item as Record<string, unknown>;
  if (!isHwid(hwid) || typeof fwVersion !== 'string' || typeof at !== 'string') return null;
  let customerId = customers.get(rawCustomerId);
  if (customerId === undefined) {
    try {
      customerId = customerIdOf(rawCustomerId);
    } catch {
      customerId = null;
    }
    customers.set(rawCustomerId, customerId);
  }
  if (customerId === null) return null;
  const time = new Date(at);
  if (Number.isNaN(time.getTime())) return null;
  return { customerId, sighting: { hwid, fwVersion: fwVersion.replace(/\u0000/g, '').slice(0, MAX_FW_VERSION), at: time } };
}
