import { Inject, Injectable } from '@nestjs/common';
import { type EndpointCall, type HealthHistory, type HealthHistoryQuery, type HealthSample, ServiceError } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { historyWindow, toHealthHistory } from '../dtos/health-history.js';
import { HealthSampleRepository } from '../repositories/health-sample.repository.js';
import { Clock } from './clock.js';

export const HISTORY_DEFAULT_DAYS = 90;
export const HISTORY_MAX_DAYS = 400;
const STATUSES: ReadonlySet<string> = new Set(['ok', 'degraded', 'down']);

@Injectable()
export class HealthService {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(HealthSampleRepository) private readonly repository: HealthSampleRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async record(sample: HealthSample): Promise<void> {
    const ts = typeof sample?.ts === 'string' ? new Date(sample.ts) : new Date(NaN);
    if (Number.isNaN(ts.getTime()) || !STATUSES.has(sample?.status)) {
      this.logger.write('warn', 'ignored malformed health sample', { sample: sample as unknown as Record<string, unknown> });
      return;
    }
    await this.repository.insert({ ts, status: sample.status });
  }

  /** GET /health/history: the last `days` UTC days (today included), newest first, every day listed. */
  async history(call: EndpointCall<Record<string, never>, HealthHistoryQuery, undefined>): Promise<HealthHistory> {
    const days = call?.query?.days ?? HISTORY_DEFAULT_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > HISTORY_MAX_DAYS) {
      throw ServiceError.badRequest(`days must be an integer from 1 to ${HISTORY_MAX_DAYS}`);
    }
    const now = this.clock.now();
    const { from, to } = historyWindow(days, now);
    return toHealthHistory(await this.repository.dailyCounts(from, to), days, now);
  }
}
