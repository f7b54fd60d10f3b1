import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { ObjectStore } from './object-store.js';
import { readAhead } from './read-ahead.js';

/** A store whose reads take a while (longer for earlier keys), recording what is read when. */
function slowStore(objects: Map<string, Buffer>) {
  const events: string[] = [];
  let open = 0;
  let maxOpen = 0;
  const store = {
    async get(key: string): Promise<Readable | null> {
      events.push(`get ${key}`);
      open++;
      maxOpen = Math.max(maxOpen, open);
      const data = objects.get(key);
      const delay = 20 - Number(key.replace(/\D/g, '') || 0);
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, delay)));
      open--;
      return data ? Readable.from([data.subarray(0, 3), data.subarray(3)]) : null;
    },
    getBytes: ObjectStore.prototype.getBytes, // the default: get, then read whole
    async getBytesInto(key: string, buffer: Buffer): Promise<Buffer | null> {
      const whole = await store.getBytes(key);
      if (!whole) return null;
      whole.copy(buffer);
      return buffer.subarray(0, whole.length);
    },
  } as unknown as ObjectStore;
  return { store, events, maxOpen: () => maxOpen };
}

async function* refsOf(keys: Array<[string, number]>, seen: string[]) {
  for (const [key, size] of keys) {
    seen.push(key);
    yield { key, size };
  }
}

describe('readAhead', () => {
  it('hands on the objects in their order, small ones whole, large ones as streams, absent ones as null', async () => {
    const objects = new Map<string, Buffer>();
    for (let i = 0; i < 10; i++) objects.set(`k${i}`, Buffer.alloc(i === 5 ? 100 : 10, i));
    const { store, maxOpen } = slowStore(objects);
    const keys: Array<[string, number]> = Array.from({ length: 10 }, (_, i) => [`k${i}`, i === 5 ? 100 : 10]);
    keys.push(['absent', 10]);
    const got: string[] = [];
    for await (const { ref, body } of readAhead(store, refsOf(keys, []), { concurrency: 4, maxObjectBytes: 50, maxBufferedBytes: 1000 })) {
      if (body === null) got.push(`${ref.key}:null`);
      else if (Buffer.isBuffer(body)) got.push(`${ref.key}:whole:${body.length}:${body[0]}`);
      else {
        const parts: Buffer[] = [];
        for await (const chunk of body as AsyncIterable<Buffer>) parts.push(chunk);
        got.push(`${ref.key}:stream:${Buffer.concat(parts).length}`);
      }
    }
    expect(got).toEqual([
      'k0:whole:10:0',
      'k1:whole:10:1',
      'k2:whole:10:2',
      'k3:whole:10:3',
      'k4:whole:10:4',
      'k5:stream:100',
      'k6:whole:10:6',
      'k7:whole:10:7',
      'k8:whole:10:8',
      'k9:whole:10:9',
      'absent:null',
    ]);
    expect(maxOpen()).toBeGreaterThan(1); // read ahead, several at once
    expect(maxOpen()).toBeLessThanOrEqual(4);
  });

  it('reads nothing past a large object before its turn, and holds at most maxBufferedBytes ahead', async () => {
    const objects = new Map<string, Buffer>([
      ['k1', Buffer.alloc(10)],
      ['k2', Buffer.alloc(100)],
      ['k3', Buffer.alloc(10)],
    ]);
    const { store, events } = slowStore(objects);
    const seen: string[] = [];
    const iterator = readAhead(
      store,
      refsOf(
        [
          ['k1', 10],
          ['k2', 100],
          ['k3', 10],
        ],
        seen,
      ),
      { concurrency: 8, maxObjectBytes: 50, maxBufferedBytes: 1000 },
    );
    const first = await iterator.next();
    expect(first.value?.ref.key).toBe('k1');
    expect(seen).toEqual(['k1', 'k2']); // k3 not even listed yet
    expect(events).toEqual(['get k1']);
    await iterator.return(undefined);

    const many = new Map(Array.from({ length: 20 }, (_, i) => [`k${i}`, Buffer.alloc(10)] as [string, Buffer]));
    const limited = slowStore(many);
    const listed: string[] = [];
    const small = readAhead(
      limited.store,
      refsOf(
        [...many.keys()].map((k) => [k, 10] as [string, number]),
        listed,
      ),
      {
        concurrency: 16,
        maxObjectBytes: 50,
        maxBufferedBytes: 30,
      },
    );
    await small.next();
    expect(listed.length).toBeLessThanOrEqual(4); // 30 bytes ahead: three objects of 10, then one more once the first is handed on
    await small.return(undefined);
  });

  it('fails at the turn of the object whose read fails', async () => {
    const store = {
      async get(key: string): Promise<Readable | null> {
        if (key === 'bad') throw new Error('disk error');
        return Readable.from([Buffer.from('ok')]);
      },
      getBytes: ObjectStore.prototype.getBytes,
    } as unknown as ObjectStore;
    const got: string[] = [];
    const run = async () => {
      for await (const { ref } of readAhead(
        store,
        refsOf(
          [
            ['a', 2],
            ['bad', 2],
            ['c', 2],
          ],
          [],
        ),
        { concurrency: 4, maxObjectBytes: 10, maxBufferedBytes: 100 },
      ))
        got.push(ref.key);
    };
    await expect(run()).rejects.toThrow('disk error');
    expect(got).toEqual(['a']);
  });

  it('reads into buffers it uses again once the next object is asked for, never one whose bytes are still handed on', async () => {
    const objects = new Map<string, Buffer>();
    for (let i = 0; i < 40; i++) objects.set(`k${i}`, Buffer.alloc(10, i));
    const { store } = slowStore(objects);
    const keys: Array<[string, number]> = Array.from({ length: 40 }, (_, i) => [`k${i}`, 10]);
    const buffers = new Set<ArrayBufferLike>();
    let i = 0;
    for await (const { body } of readAhead(store, refsOf(keys, []), { concurrency: 4, maxObjectBytes: 50, maxBufferedBytes: 1000, reuseBuffers: true })) {
      const bytes = body as Buffer;
      buffers.add(bytes.buffer);
      await new Promise((resolve) => setTimeout(resolve, 2)); // the reads ahead go on meanwhile
      expect(bytes.equals(Buffer.alloc(10, i++))).toBe(true);
    }
    expect(i).toBe(40);
    expect(buffers.size).toBeLessThanOrEqual(5); // the 4 read ahead and the one handed on
  });
});
