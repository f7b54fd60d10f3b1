import { fnv1a } from './fnv1a.js';

/**
 * Poll-After (docs/api.md "When to check again"): the seconds a device should wait before its
 * next check, spread uniformly over [interval/2, 3·interval/2) by a hash of the device
 * (`device`: its HW id, or the client address and path) and the current interval window, so a
 * device keeps one value for the window and a fleet reconnecting at once spreads over the
 * interval. Pure and cheap: one FNV-1a over a short string per check.
 */
export function pollAfterSeconds(intervalSeconds: number, device: string, nowMs: number): number {
  const window = Math.floor(nowMs / 1000 / intervalSeconds);
  const unit = fnv1a(String(window), fnv1a(device)) / 0x1_0000_0000;
  return Math.floor(intervalSeconds / 2 + unit * intervalSeconds);
}
