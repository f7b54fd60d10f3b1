import { Inject, Injectable } from '@nestjs/common';
import {
  AdminErrors,
  type EndpointCall,
  HEALTH_PARTS,
  type HealthHistory,
  type HealthHistoryQuery,
  type HealthPart,
  type HealthSample,
  type PartState,
} from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { historyDays, toHealthHistory } from '../dtos/health-history.js';
import { Clock } from './clock.js';
import { AdminStore } from '../repositories/admin.store.js';

export const HISTORY_DEFAULT_DAYS = 90;
export const HISTORY_MAX_DAYS = 400;
const STATUSES: ReadonlySet<string> = new Set(['ok', 'degraded', 'down']);
const PARTS: ReadonlySet<string> = new Set(HEALTH_PARTS);
const PART_STATES: ReadonlySet<string> = new Set(['up', 'down']);

@Injectable()
export class HealthService {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Stores a gateway's sample; the parts it names that are not known parts in a known state are left out. */
  async record(sample: HealthSample): Promise<void> {
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

  /**
   * GET /health/history: the last `days` UTC days (today included), newest first, every day
   * listed, from the daily roll-up (docs/api.md "Health history and the health page").
   */
  async history(call: EndpointCall<Record<string, never>, HealthHistoryQuery, undefined>): Promise<HealthHistory> {
    const days = call?.query?.days ?? HISTORY_DEFAULT_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > HISTORY_MAX_DAYS) {
      throw AdminErrors.health_days_invalid({ maxDays: HISTORY_MAX_DAYS });
    }
    const now = this.clock.now();
    const window = historyDays(days, now);
    return toHealthHistory(await this.adminStore.repos.healthDaily.between(window[window.length - 1], window[0]), days, now);
  }
}
