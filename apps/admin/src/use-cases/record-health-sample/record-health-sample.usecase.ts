import { Inject, Injectable } from '@nestjs/common';
import { HEALTH_PARTS, type HealthPart, type HealthSample, type PartState } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { AdminStore } from '../../repositories/admin.store.js';

const STATUSES: ReadonlySet<string> = new Set(['ok', 'degraded', 'down']);
const PARTS: ReadonlySet<string> = new Set(HEALTH_PARTS);
const PART_STATES: ReadonlySet<string> = new Set(['up', 'down']);

/** Stores a gateway's health sample; a malformed one is logged and dropped, the parts it names that are not known parts in a known state are left out. */
@Injectable()
export class RecordHealthSample {
  private readonly logger = new JsonLogger('admin');

  constructor(@Inject(AdminStore) private readonly adminStore: AdminStore) {}

  async execute(sample: HealthSample): Promise<void> {
    const ts = typeof sample?.ts === 'string' ? new Date(sample.ts) : new Date(NaN);
    if (Number.isNaN(ts.getTime()) || !STATUSES.has(sample?.status)) {
      this.logger.write('warn', 'ignored malformed health sample', { sample: sample as unknown as Record<string, unknown> });
      return;
    }
    const parts: Partial<Record<HealthPart, PartState>> = {};
    if (sample.parts && typeof sample.parts === 'object') {
      for (const [part, state] of Object.entries(sample.parts)) {
        if (PARTS.has(part) && PART_STATES.has(state)) parts[part as HealthPart] = state;
      }
    }
    await this.adminStore.repos.healthSamples.insert({ ts, status: sample.status, parts });
  }
}
