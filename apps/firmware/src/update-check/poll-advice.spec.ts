import { describe, expect, it } from '@jest/globals';
import { pollAfterSeconds } from './poll-advice.js';

describe('Poll-After jitter (docs/api.md "When to check again")', () => {
  const t0 = 1_764_400_000_000;

  it('stays within [interval/2, 3·interval/2) and is the same for a device within a window', () => {
    for (const interval of [60, 900, 3600, 86_400]) {
      const windowStart = Math.floor(t0 / 1000 / interval) * interval * 1000;
      for (let i = 0; i < 200; i++) {
        const value = pollAfterSeconds(interval, `dev-${i}`, windowStart);
        expect(value).toBeGreaterThanOrEqual(interval / 2);
        expect(value).toBeLessThan((3 * interval) / 2);
        expect(pollAfterSeconds(interval, `dev-${i}`, windowStart + interval * 1000 - 1)).toBe(value);
      }
    }
  });

  it('spreads a fleet uniformly: each tenth of the range holds about a tenth of the devices', () => {
    const interval = 3600;
    const buckets = new Array<number>(10).fill(0);
    const devices = 20_000;
    for (let i = 0; i < devices; i++) buckets[Math.floor(((pollAfterSeconds(interval, `SN-${String(i).padStart(6, '0')}`, t0) - 1800) / 3600) * 10)]++;
    for (const count of buckets) {
      expect(count).toBeGreaterThan((devices / 10) * 0.9);
      expect(count).toBeLessThan((devices / 10) * 1.1);
    }
  });

  it('gives a device another value in the next window (no device is always first)', () => {
    const values = new Set<number>();
    for (let w = 0; w < 10; w++) values.add(pollAfterSeconds(3600, 'dev-1', t0 + w * 3_600_000));
    expect(values.size).toBeGreaterThan(5);
  });
});
