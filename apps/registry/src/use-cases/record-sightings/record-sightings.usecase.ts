import { Inject, Injectable } from '@nestjs/common';
import { type DevicesSeen, isHwid } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { DeviceRepository, type Sighting } from '../../repositories/device.repository.js';
import { customerIdOf } from '../customer-tags/customer-tags.command.js';

/** Sightings per UPDATE statement. */
const CHUNK = 1000;
const MAX_FW_VERSION = 255;

/**
 * RegistryEvents.devicesSeen (batches from DeviceSightings in the apps answering update
 * checks): one UPDATE per batch of up to 1000 devices, sorted so that concurrent batches lock
 * rows in the same order. Malformed items are dropped (and logged once per batch); unknown
 * devices are ignored by the UPDATE.
 */
@Injectable()
export class RecordSightings {
  private readonly logger = new JsonLogger('registry');

  constructor(@Inject(DeviceRepository) private readonly repository: DeviceRepository) {}

  async execute(event: DevicesSeen): Promise<number> {
    const latest = new Map<string, Sighting>();
    let dropped = 0;
    for (const item of Array.isArray(event?.items) ? event.items : []) {
      const sighting = toSighting(item);
      if (!sighting) {
        dropped++;
        continue;
      }
      const key = `${sighting.customerId}\u0000${sighting.hwid}`;
      const previous = latest.get(key);
      if (!previous || previous.at <= sighting.at) latest.set(key, sighting);
    }
    if (dropped) this.logger.warn('ignored malformed items of registry.devices-seen', { dropped });
    const items = [...latest.values()].sort((a, b) =>
      a.customerId < b.customerId ? -1 : a.customerId > b.customerId ? 1 : a.hwid < b.hwid ? -1 : a.hwid > b.hwid ? 1 : 0,
    );
    let changed = 0;
    for (let i = 0; i < items.length; i += CHUNK) changed += await this.repository.recordSightings(items.slice(i, i + CHUNK));
    return changed;
  }
}

function toSighting(item: unknown): Sighting | null {
  if (!item || typeof item !== 'object') return null;
  const { customerId, hwid, fwVersion, at } = item as Record<string, unknown>;
  if (!isHwid(hwid) || typeof fwVersion !== 'string' || typeof at !== 'string') return null;
  let customer;
  try {
    customer = customerIdOf(customerId);
  } catch {
    return null;
  }
  const time = new Date(at);
  if (Number.isNaN(time.getTime())) return null;
  return { customerId: customer, hwid, fwVersion: fwVersion.replace(/\u0000/g, '').slice(0, MAX_FW_VERSION), at: time };
}
