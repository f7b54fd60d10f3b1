import { describe, expect, it } from '@jest/globals';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { prepareServiceRuntime } from './service-runtime.js';

/** Full (mark-compact) collections while `mib` MiB pass through short-lived 64 KiB buffers, as a streamed upload's chunks do. */
async function fullCollectionsWhileStreaming(mib: number): Promise<number> {
  let full = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
  });
  observer.observe({ entryTypes: ['gc'] });
  let checksum = 0;
  for (let i = 0; i < mib * 16; i++) {
    const chunk = Buffer.allocUnsafeSlow(64 * 1024);
    chunk[0] = i;
    checksum += chunk[0];
    if (i % 64 === 0) await tick();
  }
  await tick();
  observer.disconnect();
  return checksum >= 0 ? full : -1;
}

describe('prepareServiceRuntime', () => {
  it('lets young collections free streamed chunks instead of a full collection per 64 MB of them', async () => {
    const before = await fullCollectionsWhileStreaming(1024);
    prepareServiceRuntime([]);
    const after = await fullCollectionsWhileStreaming(1024);
    expect(before).toBeGreaterThanOrEqual(6); // V8's default: about one per 64 MB
    expect(after).toBeLessThanOrEqual(before / 2);
  }, 60_000); // 2 GiB of chunks: well under a second alone, much longer beside a busy suite
});
