import { describe, expect, it } from '@jest/globals';
import { BatchLoader } from './batch-loader.js';

describe('BatchLoader', () => {
  const recorder = (
    answer: (group: string, keys: readonly string[]) => Promise<readonly string[]> = async (group, keys) => keys.map((k) => `${group}:${k}`),
  ) => {
    const calls: [string, string[]][] = [];
    const loader = new BatchLoader<string, string, string>((group, keys) => {
      calls.push([group, [...keys]]);
      return answer(group, keys);
    }, 3);
    return { calls, loader };
  };

  it('sends the loads of one turn at its end, per group and in chunks of maxBatch, each key once', async () => {
    const { calls, loader } = recorder();
    const loads = [loader.load('g', 'a'), loader.load('g', 'b'), loader.load('h', 'a'), loader.load('g', 'a'), loader.load('g', 'c'), loader.load('g', 'd')];
    expect(calls).toEqual([]); // nothing before the turn ends
    expect(await Promise.all(loads)).toEqual(['g:a', 'g:b', 'h:a', 'g:a', 'g:c', 'g:d']);
    expect(calls).toEqual([
      ['g', ['a', 'b', 'c']],
      ['g', ['d']],
      ['h', ['a']],
    ]);
    expect(await loader.load('g', 'a')).toBe('g:a'); // a new turn, a new batch
    expect(calls).toHaveLength(4);
  });

  it('rejects every load of a batch that fails, throws, or answers the wrong number of values; other batches are unaffected', async () => {
    const failing = recorder(async (group, keys) => {
      if (group === 'down') throw new Error('down');
      if (group === 'short') return keys.slice(1);
      return keys;
    });
    const results = await Promise.allSettled([
      failing.loader.load('down', 'x'),
      failing.loader.load('short', 'x'),
      failing.loader.load('short', 'y'),
      failing.loader.load('ok', 'z'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(Error);

    const throwing = new BatchLoader<string, string, string>(() => {
      throw new Error('sync');
    }, 2);
    await expect(throwing.load('g', 'k')).rejects.toThrow('sync');
  });

  it('refuses a batch size that is not a positive integer', () => {
    expect(() => new BatchLoader(async () => [], 0)).toThrow(RangeError);
    expect(() => new BatchLoader(async () => [], 1.5)).toThrow(RangeError);
  });
});
