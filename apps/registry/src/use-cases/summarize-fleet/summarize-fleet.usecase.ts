import { Inject, Injectable } from '@nestjs/common';
import { type FleetSummary, LAST_SEEN_BUCKETS } from '@app/contracts';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { SummarizeFleetCommand } from './summarize-fleet.command.js';

/** GET /fleet/summary: the customer's active devices by reported version and last-seen age (docs/api.md "Rollouts"). */
@Injectable()
export class SummarizeFleet {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(command: SummarizeFleetCommand): Promise<FleetSummary> {
    const counts = await this.store.transaction((repos) => repos.rollouts.fleet({ customerId: command.customerId, ...command.filter }));
    const buckets = Object.fromEntries(LAST_SEEN_BUCKETS.map((bucket, i) => [bucket.name, counts.lastSeen.buckets[i] ?? 0])) as Record<
      (typeof LAST_SEEN_BUCKETS)[number]['name'],
      number
    >;
    return {
      at: command.filter.at.toISOString(),
      active: counts.active,
      withdrawn: counts.withdrawn,
      versions: counts.versions.map((v) => ({ fw_version: v.fwVersion, devices: v.devices })),
      other_versions: counts.otherVersions,
      never_reported: counts.neverReported,
      last_seen: { never: counts.lastSeen.never, ...buckets, older: counts.lastSeen.older },
    };
  }
}
