import { describe, expect, it } from '@jest/globals';
import { bucketRanges, ROLLOUT_BUCKETS, rolloutBucket, rolloutOffset, rolloutPosition, stageOfPosition, stageTarget } from '@app/contracts';
import { actionFrom, holdPassed, trippedRule } from './rollout.js';

describe('rollout stage membership', () => {
  it('gives a device a stable bucket in 0..9999 (SHA-256 of the HW id, as registry.rollout_bucket computes it)', () => {
    expect(rolloutBucket('dev-1')).toBe(8898); // SELECT registry.rollout_bucket('dev-1')
    expect(rolloutBucket('dev-1')).toBe(rolloutBucket('dev-1'));
    for (let i = 0; i < 200; i++) {
      const b = rolloutBucket(`d${i}`);
      expect(b >= 0 && b < ROLLOUT_BUCKETS).toBe(true);
    }
  });

  it('orders devices per rollout: position = (bucket - offset) mod 10000, and the ranges below a threshold wrap', () => {
    expect(rolloutPosition(5, 10)).toBe(9995);
    expect(rolloutPosition(10, 10)).toBe(0);
    expect(bucketRanges(9990, 20)).toEqual([
      [9990, 9999],
      [0, 9],
    ]);
    expect(bucketRanges(100, 0)).toEqual([]);
    expect(bucketRanges(100, ROLLOUT_BUCKETS)).toEqual([[0, 9999]]);
    expect(typeof rolloutOffset('7d3f0d3e-4a4b-4c7a-9a53-0c3c6a8f8a10')).toBe('number');
  });

  it('cuts stages at max(ceil(percent of the audience), min_devices), at most the audience; a device stays in its first stage', () => {
    expect(stageTarget(1000, 1, 0)).toBe(10);
    expect(stageTarget(1000, 1, 20)).toBe(20);
    expect(stageTarget(5, 10, 0)).toBe(1);
    expect(stageTarget(5, 1, 50)).toBe(5);
    const thresholds = [100, 1000, 1000, 10000];
    expect(stageOfPosition(99, thresholds)).toBe(0);
    expect(stageOfPosition(100, thresholds)).toBe(1);
    expect(stageOfPosition(5000, thresholds)).toBe(3);
    expect(stageOfPosition(5000, thresholds.slice(0, 2))).toBe(-1);
  });
});

describe('rollout transitions and rules', () => {
  it('allows each action only from the states that permit it', () => {
    expect(actionFrom('pause', 'running')).toBe('go');
    expect(actionFrom('pause', 'paused')).toBe('same');
    expect(actionFrom('pause', 'halted')).toBe('refuse');
    expect(actionFrom('resume', 'halted')).toBe('go');
    expect(actionFrom('resume', 'completed')).toBe('refuse');
    expect(actionFrom('advance', 'halted')).toBe('refuse');
    expect(actionFrom('abort', 'completed')).toBe('refuse');
    expect(actionFrom('abort', 'aborted')).toBe('same');
  });

  it('halts on the first rule over its share of at least min_outcomes decided devices', () => {
    const rules = [{ outcome: 'failed' as const, max_percent: 5, min_outcomes: 20 }];
    const at = new Date('2026-01-01T00:00:00Z');
    expect(trippedRule(rules, { pending: 100, updated: 18, failed: 1 }, at)).toBeNull(); // 19 decided
    expect(trippedRule(rules, { updated: 19, failed: 1 }, at)).toBeNull(); // 5 % is not over 5 %
    expect(trippedRule(rules, { updated: 18, failed: 2 }, at)).toEqual({ rule: rules[0], count: 2, outcomes: 20, percent: 10, at: at.toISOString() });
  });

  it('moves on only after the hold time', () => {
    const started = new Date('2026-01-01T00:00:00Z');
    const rollout = { stages: [{ percent: 10, minDevices: 0, holdMinutes: 30 }], currentStage: 0, stageStartedAt: started };
    expect(holdPassed(rollout, new Date(started.getTime() + 29 * 60_000))).toBe(false);
    expect(holdPassed(rollout, new Date(started.getTime() + 30 * 60_000))).toBe(true);
  });
});
