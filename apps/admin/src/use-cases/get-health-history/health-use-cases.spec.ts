import { configureLogging } from '@app/infra';
import { describe, expect, it } from '@jest/globals';
import { ErrorCode, type HealthSample } from '@app/contracts';
import { makeFixedClock, makeHealthSample } from '../../../test/factories.js';
import type { DailyPartCounts } from '../../dtos/health-history.js';
import type { HealthDailyRepository } from '../../repositories/health-daily.repository.js';
import type { HealthSampleRepository } from '../../repositories/health-sample.repository.js';
import type { AdminStore } from '../../repositories/admin.store.js';
import { RecordHealthSample } from '../record-health-sample/record-health-sample.usecase.js';
import { GetHealthHistoryCommand } from './get-health-history.command.js';
import { GetHealthHistory } from './get-health-history.usecase.js';

configureLogging({ sink: () => undefined });

function setup() {
  const inserted: Array<{ ts: Date; status: HealthSample['status']; parts: HealthSample['parts'] }> = [];
  const windows: Array<[string, string]> = [];
  const samples = { insert: async (s: (typeof inserted)[number]) => void inserted.push(s) } as unknown as HealthSampleRepository;
  const daily = {
    between: async (from: string, to: string): Promise<DailyPartCounts[]> => {
      windows.push([from, to]);
      return [];
    },
  } as unknown as HealthDailyRepository;
  const store = { repos: { healthSamples: samples, healthDaily: daily } } as unknown as AdminStore;
  const recordSample = new RecordHealthSample(store);
  const getHistory = new GetHealthHistory(store, makeFixedClock('2026-11-21T10:00:00Z'));
  const service = {
    record: (sample: HealthSample) => recordSample.execute(sample),
    // As the handler does: the command is built inside the promise chain, so a refusal rejects.
    history: async (query: unknown) => getHistory.execute(GetHealthHistoryCommand.create({ query })),
  };
  return { service, inserted, windows };
}

const call = (days?: number) => (days === undefined ? {} : { days });

describe('RecordHealthSample and GetHealthHistory', () => {
  it('stores valid samples with their known parts and ignores malformed ones', async () => {
    const { service, inserted } = setup();
    await service.record(makeHealthSample('2026-11-21T09:59:00Z', 'degraded', { database: 'up', object_store: 'down' }));
    await service.record({
      ts: '2026-11-21T09:59:30Z',
      status: 'ok',
      parts: { database: 'up', nonsense: 'up', worker: 'sideways' },
    } as unknown as HealthSample);
    await service.record(makeHealthSample('2026-11-21T09:59:40Z'));
    await service.record(makeHealthSample('not a time'));
    await service.record({ ts: '2026-11-21T09:59:00Z', status: 'sideways' } as unknown as HealthSample);
    expect(inserted).toEqual([
      { ts: new Date('2026-11-21T09:59:00Z'), status: 'degraded', parts: { database: 'up', object_store: 'down' } },
      { ts: new Date('2026-11-21T09:59:30Z'), status: 'ok', parts: { database: 'up' } },
      { ts: new Date('2026-11-21T09:59:40Z'), status: 'ok', parts: {} },
    ]);
  });

  it('answers 90 days by default, asking the repository for exactly that window', async () => {
    const { service, windows } = setup();
    const history = await service.history(call());
    expect(history.days).toHaveLength(90);
    expect(windows).toEqual([['2026-08-24', '2026-11-21']]);
  });

  it('refuses days outside 1..400 with 400', async () => {
    const { service } = setup();
    await expect(service.history(call(0))).rejects.toMatchObject({ code: ErrorCode.BadRequest, reason: 'health_days_invalid' });
    await expect(service.history(call(401))).rejects.toMatchObject({ code: ErrorCode.BadRequest });
    await expect(service.history(call(1))).resolves.toMatchObject({ days: [{ day: '2026-11-21' }] });
  });
});
