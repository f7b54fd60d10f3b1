import { describe, expect, it } from '@jest/globals';
import { HEALTH_PARTS } from '@app/contracts';
import { historyDays, historyWindow, toHealthHistory } from './health-history.js';

describe('historyWindow', () => {
  it('covers whole UTC days, today included', () => {
    expect(historyWindow(3, new Date('2026-11-21T23:59:00+05:00'))).toEqual({
      from: new Date('2026-11-19T00:00:00Z'),
      to: new Date('2026-11-22T00:00:00Z'),
    });
    expect(historyDays(3, new Date('2026-11-21T23:59:00+05:00'))).toEqual(['2026-11-21', '2026-11-20', '2026-11-19']);
  });
});

describe('toHealthHistory', () => {
  const now = new Date('2026-11-21T08:00:00Z');

  it('lists every day newest first, with null uptime for days without samples', () => {
    const history = toHealthHistory(
      [
        { day: '2026-11-21', part: 'service', samples: 4, up: 3, degraded: 1, down: 0 },
        { day: '2026-11-19', part: 'service', samples: 2, up: 0, degraded: 0, down: 2 },
        { day: '2026-11-21', part: 'database', samples: 4, up: 4, degraded: 0, down: 0 },
        { day: '2026-11-20', part: 'database', samples: 4, up: 1, degraded: 0, down: 3 },
      ],
      3,
      now,
    );
    expect(history.days).toEqual([
      { day: '2026-11-21', samples: 4, ok: 3, degraded: 1, down: 0, uptime_ratio: 0.75 },
      { day: '2026-11-20', samples: 0, ok: 0, degraded: 0, down: 0, uptime_ratio: null },
      { day: '2026-11-19', samples: 2, ok: 0, degraded: 0, down: 2, uptime_ratio: 0 },
    ]);
    expect(history.parts.map((p) => p.part)).toEqual([...HEALTH_PARTS]);
    expect(history.parts.find((p) => p.part === 'database')!.days).toEqual([
      { day: '2026-11-21', samples: 4, up: 4, down: 0, uptime_ratio: 1 },
      { day: '2026-11-20', samples: 4, up: 1, down: 3, uptime_ratio: 0.25 },
      { day: '2026-11-19', samples: 0, up: 0, down: 0, uptime_ratio: null },
    ]);
    expect(history.parts.find((p) => p.part === 'gateway')!.days.every((d) => d.uptime_ratio === null)).toBe(true);
  });

  it('gives exactly `days` entries across month and year ends', () => {
    const history = toHealthHistory([], 400, new Date('2027-01-02T00:00:00Z'));
    expect(history.days).toHaveLength(400);
    expect(history.days[0].day).toBe('2027-01-02');
    expect(history.days[1].day).toBe('2027-01-01');
    expect(history.days[2].day).toBe('2026-12-31');
    expect(new Set(history.days.map((d) => d.day)).size).toBe(400);
    for (const part of history.parts) expect(part.days.map((d) => d.day)).toEqual(history.days.map((d) => d.day));
  });
});
