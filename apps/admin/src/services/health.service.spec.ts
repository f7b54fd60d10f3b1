import { configureLogging } from '@app/infra';
import { describe, expect, it } from '@jest/globals';
import { ErrorCode, type HealthSample } from '@app/contracts';
import { makeFixedClock, makeHealthSample } from '../../test/factories.js';
import type { DailyHealthCounts } from '../dtos/health-history.js';
import type { HealthSampleRepository } from '../repositories/health-sample.repository.js';
import { HealthService } from './health.service.js';

configureLogging({ sink: () => undefined });

function setup() {
  const inserted: Array<{ ts: Date; status: HealthSample['status'] }> = [];
  const windows: Array<[Date, Date]> = [];
  const repository = {
    insert: async (s: { ts: Date; status: HealthSample['status'] }) => void inserted.push(s),
    dailyCounts: async (from: Date, to: Date): Promise<DailyHealthCounts[]> => {
      windows.push([from, to]);
      return [];
    },
  } as unknown as HealthSampleRepository;
  const service = new HealthService(repository, makeFixedClock('2026-11-21T10:00:00Z'));
  return { service, inserted, windows };
}

const call = (days?: number) => ({ ctx: {} as never, params: {}, query: days === undefined ? {} : { days }, body: undefined });

describe('HealthService', () => {
  it('stores valid samples and ignores malformed ones', async () => {
    const { service, inserted } = setup();
    await service.record(makeHealthSample('2026-11-21T09:59:00Z', 'degraded'));
    await service.record(makeHealthSample('not a time'));
    await service.record({ ts: '2026-11-21T09:59:00Z', status: 'sideways' } as unknown as HealthSample);
    expect(inserted).toEqual([{ ts: new Date('2026-11-21T09:59:00Z'), status: 'degraded' }]);
  });

  it('answers 90 days by default, asking the repository for exactly that window', async () => {
    const { service, windows } = setup();
    const history = await service.history(call());
    expect(history.days).toHaveLength(90);
    expect(windows).toEqual([[new Date('2026-08-24T00:00:00Z'), new Date('2026-11-22T00:00:00Z')]]);
  });

  it('refuses days outside 1..400 with 400', async () => {
    const { service } = setup();
    await expect(service.history(call(0))).rejects.toMatchObject({ code: ErrorCode.BadRequest });
    await expect(service.history(call(401))).rejects.toMatchObject({ code: ErrorCode.BadRequest });
    await expect(service.history(call(1))).resolves.toMatchObject({ days: [{ day: '2026-11-21' }] });
  });
});
