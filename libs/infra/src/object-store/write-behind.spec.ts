import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { ObjectStore, type PutOptions } from './object-store.js';
import { forEachConcurrently, WriteBehind } from './write-behind.js';

/** A store whose puts take a while, recording what was put with which options. */
function slowStore(failKey?: string) {
  const stored = new Map<string, { data: Buffer; options: PutOptions }>();
  let open = 0;
  let maxOpen = 0;
  const store = {
    async put(key: string, body: Readable, options: PutOptions): Promise<void> {
      open++;
      maxOpen = Math.max(maxOpen, open);
      const parts: Buffer[] = [];
      for await (const chunk of body as AsyncIterable<Buffer>) parts.push(chunk);
      await new Promise((resolve) => setTimeout(resolve, 5));
      open--;
      if (key === failKey) throw new Error(`disk full at ${key}`);
      stored.set(key, { data: Buffer.concat(parts), options });
    },
    putBytes: ObjectStore.prototype.putBytes, // the default: put of the bytes with their size
  } as unknown as ObjectStore;
  return { store, stored, maxOpen: () => maxOpen };
}

describe('WriteBehind', () => {
  it('puts every object, small ones in the background a few at a time, large ones at once, with the options given', async () => {
    const { store, stored, maxOpen } = slowStore();
    const writes = new WriteBehind(store, { concurrency: 3, maxObjectBytes: 100, maxBufferedBytes: 1000, put: { durable: false } });
    for (let i = 0; i < 10; i++) await writes.add(`k${i}`, 10, Readable.from([Buffer.alloc(10, i)]));
    await writes.add('large', 500, Readable.from([Buffer.alloc(500, 7)]));
    await writes.finish();
    expect([...stored.keys()].sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'large']);
    expect(stored.get('k4')).toEqual({ data: Buffer.alloc(10, 4), options: { durable: false, sizeBytes: 10 } });
    expect(stored.get('large')?.data.length).toBe(500);
    expect(maxOpen()).toBeGreaterThan(1);
    expect(maxOpen()).toBeLessThanOrEqual(3);
  });

  it('holds at most maxBufferedBytes in puts under way', async () => {
    const { store, maxOpen } = slowStore();
    const writes = new WriteBehind(store, { concurrency: 10, maxObjectBytes: 100, maxBufferedBytes: 25, put: {} });
    for (let i = 0; i < 6; i++) await writes.add(`k${i}`, 10, Readable.from([Buffer.alloc(10)]));
    await writes.finish();
    expect(maxOpen()).toBeLessThanOrEqual(2);
  });

  it('reports the first failed put from finish(), and from add() once it is known', async () => {
    const { store } = slowStore('k1');
    const writes = new WriteBehind(store, { concurrency: 2, maxObjectBytes: 100, maxBufferedBytes: 1000, put: {} });
    await writes.add('k0', 1, Readable.from([Buffer.alloc(1)]));
    await writes.add('k1', 1, Readable.from([Buffer.alloc(1)]));
    await expect(writes.finish()).rejects.toThrow('disk full at k1');
    await expect(writes.add('k2', 1, Readable.from([Buffer.alloc(1)]))).rejects.toThrow('disk full at k1');
  });
});

describe('forEachConcurrently', () => {
  it('runs every item at most `concurrency` at a time, and throws the first failure once the others have ended', async () => {
    let open = 0;
    let maxOpen = 0;
    const done: number[] = [];
    const run = async (i: number) => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      await new Promise((resolve) => setTimeout(resolve, 2));
      open--;
      if (i === 3) throw new Error('item 3 failed');
      done.push(i);
    };
    await forEachConcurrently([0, 1, 2], 2, run);
    expect(done.sort()).toEqual([0, 1, 2]);
    expect(maxOpen).toBe(2);
    await expect(forEachConcurrently([3, 4, 5], 2, run)).rejects.toThrow('item 3 failed');
    expect(open).toBe(0);
  });
});
