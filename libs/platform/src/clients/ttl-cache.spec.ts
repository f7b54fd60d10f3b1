import { describe, expect, it } from '@jest/globals';
import { GroupedTtlCache, TtlCache } from './ttl-cache.js';

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

describe('GroupedTtlCache', () => {
  it('keeps the same key apart in different groups, and expires entries', () => {
    let now = 0;
    const cache = new GroupedTtlCache<string, string, number>(10, 1000, () => now);
    cache.set('c1', 'dev-1', 1);
    cache.set('c2', 'dev-1', 2);
    expect([cache.get('c1', 'dev-1'), cache.get('c2', 'dev-1'), cache.get('c3', 'dev-1')]).toEqual([1, 2, undefined]);
    now = 1000;
    expect(cache.get('c1', 'dev-1')).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('stays within one bound across all groups, dropping the oldest entry of the oldest group first', () => {
    const cache = new GroupedTtlCache<string, number, number>(3, 60_000);
    cache.set('old', 1, 1);
    cache.set('old', 2, 2);
    for (let i = 0; i < 3; i++) cache.set('flood', i, i);
    expect(cache.size).toBe(3);
    expect([cache.get('old', 1), cache.get('old', 2)]).toEqual([undefined, undefined]);
    expect([0, 1, 2].map((i) => cache.get('flood', i))).toEqual([0, 1, 2]);
    cache.set('flood', 0, 10); // re-set: moved last, so 1 goes first
    cache.set('other', 0, 0);
    expect(cache.get('flood', 1)).toBeUndefined();
    expect(cache.get('flood', 0)).toBe(10);
    expect(cache.size).toBe(3);
  });

  it('forgets a whole group, and a load of that group in flight is not cached', async () => {
    const cache = new GroupedTtlCache<string, string, string>(10, 60_000);
    cache.set('c1', 'a', 'A');
    cache.set('c1', 'b', 'B');
    cache.set('c2', 'a', 'other');
    let release!: (value: string) => void;
    const stale = cache.getOrLoad('c1', 'c', () => new Promise<string>((r) => (release = r)));
    cache.deleteGroup('c1');
    expect(cache.size).toBe(1);
    expect([cache.get('c1', 'a'), cache.get('c1', 'b'), cache.get('c2', 'a')]).toEqual([undefined, undefined, 'other']);
    release('old');
    expect(await stale).toBe('old');
    expect(cache.get('c1', 'c')).toBeUndefined();
    expect(await cache.getOrLoad('c1', 'c', async () => 'new')).toBe('new');
    expect(cache.get('c1', 'c')).toBe('new');
  });
});
