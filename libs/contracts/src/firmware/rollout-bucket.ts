import { createHash } from 'node:crypto';

/**
 * Stage membership of staged rollouts (docs/api.md "Rollouts"), written once: the registry
 * stores every device's bucket, the firmware app derives a rollout's offset and compares
 * positions with the stage thresholds in memory.
 */

/** Buckets (and positions, and thresholds) are 0 .. ROLLOUT_BUCKETS - 1; a threshold of ROLLOUT_BUCKETS reaches every device. */
export const ROLLOUT_BUCKETS = 10_000;

function hash32(value: string): number {
  return createHash('sha256').update(value, 'utf8').digest().readUInt32BE(0);
}

/** A device's stable bucket: the first 32 bits of SHA-256(hwid), mod 10000. */
export function rolloutBucket(hwid: string): number {
  return hash32(hwid) % ROLLOUT_BUCKETS;
}

/** A rollout's offset: the same hash of its id, so every rollout orders the fleet differently. */
export function rolloutOffset(rolloutId: string): number {
  return hash32(rolloutId.toLowerCase()) % ROLLOUT_BUCKETS;
}

/** A device's position in a rollout, stable per device and rollout: (bucket - offset) mod 10000. */
export function rolloutPosition(bucket: number, offset: number): number {
  return (((bucket - offset) % ROLLOUT_BUCKETS) + ROLLOUT_BUCKETS) % ROLLOUT_BUCKETS;
}

/**
 * The bucket ranges (inclusive) whose positions are below `threshold`: one range, or two when
 * it wraps past 9999. Empty for threshold 0.
 */
export function bucketRanges(offset: number, threshold: number): [number, number][] {
  if (threshold <= 0) return [];
  if (threshold >= ROLLOUT_BUCKETS) return [[0, ROLLOUT_BUCKETS - 1]];
  const end = offset + threshold - 1;
  return end < ROLLOUT_BUCKETS
    ? [[offset, end]]
    : [
        [offset, ROLLOUT_BUCKETS - 1],
        [0, end - ROLLOUT_BUCKETS],
      ];
}

/** How many audience devices a stage must reach: max(ceil(percent % of the audience), min_devices), at most the audience. */
export function stageTarget(audience: number, percent: number, minDevices: number): number {
  return Math.min(audience, Math.max(Math.ceil((audience * percent) / 100 - 1e-9), minDevices));
}

/**
 * The stage a position falls in: the first whose threshold exceeds it, or -1 (not reached).
 * `thresholds` are non-decreasing, one per stage started so far.
 */
export function stageOfPosition(position: number, thresholds: readonly number[]): number {
  for (let i = 0; i < thresholds.length; i++) if (position < thresholds[i]) return i;
  return -1;
}
