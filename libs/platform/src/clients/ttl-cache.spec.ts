import { describe, expect, it } from '@jest/globals';
import { TtlCache } from './ttl-cache.js';

describe('TtlCache', () => {
  it('forgets entries after their time to live', () => {
    let now = 0;
    const cache = new TtlCache<string, number>(10, 1000, () => now);
    cache.set('a', 1);
    now = 999;
    expect(cache.get('a')).toBe(1);
    now = 1000;
    expect(cache.get('a')).toBeUndefined();
  });

  it('stays within its bound by dropping the oldest entry', () => {
    const cache = new TtlCache<number, number>(3, 60_000);
    for (let i = 0; i < 5; i++) cache.set(i, i);
    expect(cache.size).toBe(3);
    expect(cache.get(0)).toBeUndefined();
    expect(cache.get(4)).toBe(4);
  });

  it('shares one load between concurrent misses', async () => {
    const cache = new TtlCache<string, number>(10, 1000);
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 5));
      return 7;
    };
    expect(await Promise.all([cache.getOrLoad('k', load), cache.getOrLoad('k', load)])).toEqual([7, 7]);
    expect(loads).toBe(1);
  });

  it('does not cache a load that was invalidated while in flight, and a new load starts afresh', async () => {
    const cache = new TtlCache<string, string>(10, 60_000);
    let release!: (value: string) => void;
    const stale = cache.getOrLoad('k', () => new Promise<string>((r) => (release = r)));
    cache.delete('k');
    const fresh = cache.getOrLoad('k', async () => 'new');
    release('old');
    expect(await stale).toBe('old');
    expect(await fresh).toBe('new');
    expect(cache.get('k')).toBe('new');
    cache.clear();
    expect(cache.get('k')).toBeUndefined();
  });

  it('caches null (a known absence) but not undefined', async () => {
    const cache = new TtlCache<string, string | null>(10, 60_000);
    let loads = 0;
    const load = async () => {
      loads++;
      return null;
    };
    expect(await cache.getOrLoad('k', load)).toBeNull();
    expect(await cache.getOrLoad('k', load)).toBeNull();
    expect(loads).toBe(1);
  });
});
