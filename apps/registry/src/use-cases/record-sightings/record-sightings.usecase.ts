import { Inject, Injectable } from '@nestjs/common';
import type { CustomerId } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import type { Sighting } from '../../repositories/device-sighting.repository.js';
import type { OfferRow } from '../../repositories/rollout-offer.repository.js';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { RecordSightingsCommand } from './record-sightings.command.js';

/** Sightings per UPDATE statement. */
const CHUNK = 1000;
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

  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  /** Returns the devices changed (0 for a dropped batch). */
  async execute(command: RecordSightingsCommand): Promise<number> {
    const { byCustomer, dropped, offers } = command;
    if (dropped) this.logger.warn('ignored malformed items of registry.devices-seen', { dropped });
    let count = 0;
    for (const sightings of byCustomer.values()) count += sightings.length;
    if (count === 0) return 0;
    if (this.waiting + count > MAX_WAITING_SIGHTINGS) {
      this.logger.warn('dropped a batch of registry.devices-seen: too many sightings waiting', { sightings: count, waiting: this.waiting });
      return 0;
    }
    this.waiting += count;
    const applied = this.previous.then(() => this.apply(byCustomer, offers));
    this.previous = applied.catch(() => undefined);
    try {
      return await applied;
    } finally {
      this.waiting -= count;
    }
  }

  private async apply(byCustomer: ReadonlyMap<CustomerId, Sighting[]>, offers: ReadonlyMap<CustomerId, OfferRow[]>): Promise<number> {
    let changed = 0;
    for (const customerId of [...byCustomer.keys()].sort()) {
      const sightings = byCustomer.get(customerId)!.sort((a, b) => (a.hwid < b.hwid ? -1 : a.hwid > b.hwid ? 1 : 0));
      for (let i = 0; i < sightings.length; i += CHUNK) {
        const chunk = sightings.slice(i, i + CHUNK);
        changed += await this.store.transaction(({ sightings: repository }) => repository.record({ customerId, sightings: chunk }));
      }
      // After the sightings: an offer and the version that answers it may come in one batch.
      const offered = offers.get(customerId) ?? [];
      for (let i = 0; i < offered.length; i += CHUNK) {
        const chunk = offered.slice(i, i + CHUNK);
        await this.store.transaction(({ rolloutOffers }) => rolloutOffers.recordOffers({ customerId, offers: chunk }));
      }
    }
    return changed;
  }
}
