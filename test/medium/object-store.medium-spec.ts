import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createObjectStore, FilesystemObjectStore, loadConfig, ObjectSizeMismatchError, S3ObjectStore, type ObjectStore } from '@app/infra';
import { pseudoRandomSha256, pseudoRandomStream, readAll, sha256OfStream, startS3Server, startTcpProxy, type S3TestServer, type TcpProxy } from '@app/testing';

const MiB = 1024 * 1024;
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
const BIG = 16 * MiB;

interface Harness {
  readonly store: ObjectStore;
  /** Bytes that have left the caller's stream for good (on disk / on the wire) so far. */
  delivered(): number;
  /** Files or uploads left behind by failed puts. */
  leftovers(): Promise<number>;
  close(): Promise<void>;
}

async function filesystemHarness(): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'objects-'));
  const store = new FilesystemObjectStore(join(dir, 'objects'));
  const tmp = join(dir, 'objects', '~tmp');
  return {
    store,
    delivered: () => {
      let total = 0;
      for (const name of readdirSync(tmp)) total += statSync(join(tmp, name), { throwIfNoEntry: false })?.size ?? 0;
      return total;
    },
    leftovers: async () => (await readdir(tmp)).length,
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

async function s3Harness(): Promise<Harness> {
  const server: S3TestServer = await startS3Server();
  // The store talks through a counting proxy so the test sees what really went out.
  const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(server.endpoint).port) });
  const store = new S3ObjectStore({ ...server.config, endpoint: `http://127.0.0.1:${proxy.port}` });
  return {
    store,
    delivered: () => proxy.bytesUpstream,
    leftovers: async () => 0,
    close: async () => {
      await store.close();
      await proxy.close();
      await server.close();
    },
  };
}

/**
 * Puts a generated stream and returns the largest gap seen between bytes produced and
 * bytes delivered: an adapter that buffered the whole body would reach the full size.
 */
async function putMeasuringLag(h: Harness, key: string, size: number, sizeKnown: boolean, seed: string): Promise<number> {
  let maxLag = 0;
  let start = -1;
  const body = pseudoRandomStream(size, {
    seed,
    onProduce: (produced) => {
      const delivered = h.delivered();
      if (start < 0) start = delivered;
      maxLag = Math.max(maxLag, produced - (delivered - start));
    },
  });
  await h.store.put(key, body, { ...(sizeKnown ? { sizeBytes: size } : {}), contentType: 'application/octet-stream' });
  return maxLag;
}

describe.each([
  ['filesystem', filesystemHarness],
  ['s3', s3Harness],
] as const)('ObjectStore (%s)', (kind, makeHarness) => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reports its kind and is ready', async () => {
    expect(h.store.kind).toBe(kind);
    expect(await h.store.check()).toBe(true);
  });

  it.each([
    ['known', true],
    ['unknown', false],
  ] as const)('round-trips 16 MiB of %s length, streamed', async (_label, sizeKnown) => {
    const key = `firmware/cust-1/${sizeKnown ? 'known' : 'unknown'}.bin`;
    const seed = `big-${sizeKnown}`;
    const maxLag = await putMeasuringLag(h, key, BIG, sizeKnown, seed);
    // Buffering the body whole would make the gap reach 16 MiB. Measured: filesystem ~0.1 MiB,
    // S3 PutObject ~5 MiB (kernel socket buffers), S3 multipart ~10 MiB (a 5 MiB part in flight
    // plus the next one being filled).
    expect(maxLag).toBeLessThan(14 * MiB);

    expect(await h.store.head(key)).toEqual({ sizeBytes: BIG });
    const body = await h.store.get(key);
    expect(body).not.toBeNull();
    expect(await sha256OfStream(body!)).toBe(await pseudoRandomSha256(BIG, seed));

    await h.store.delete(key);
    expect(await h.store.head(key)).toBeNull();
    expect(await h.store.get(key)).toBeNull();
    await h.store.delete(key); // idempotent
    expect(await h.leftovers()).toBe(0);
  });

  it('serves inclusive byte ranges', async () => {
    const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    await h.store.put('ranges/a.bin', Readable.from([data]), { sizeBytes: data.length });
    expect((await readAll((await h.store.get('ranges/a.bin', { start: 10, end: 19 }))!)).toString('hex')).toBe(data.subarray(10, 20).toString('hex'));
    expect((await readAll((await h.store.get('ranges/a.bin', { start: 0, end: 0 }))!)).toString('hex')).toBe(data.subarray(0, 1).toString('hex'));
    expect((await readAll((await h.store.get('ranges/a.bin', { start: 990, end: 999 }))!)).toString('hex')).toBe(data.subarray(990).toString('hex'));
    expect(await sha256OfStream((await h.store.get('ranges/a.bin'))!)).toBe(sha256(data));
  });

  it('overwrites an object, and stores an empty one', async () => {
    await h.store.put('over/x', Readable.from([Buffer.from('first')]), { sizeBytes: 5 });
    await h.store.put('over/x', Readable.from([Buffer.from('second!')]), {});
    expect((await readAll((await h.store.get('over/x'))!)).toString()).toBe('second!');
    await h.store.put('over/empty', Readable.from([]), { sizeBytes: 0 });
    expect(await h.store.head('over/empty')).toEqual({ sizeBytes: 0 });
    expect((await readAll((await h.store.get('over/empty'))!)).length).toBe(0);
  });

  it('moves an object to another key (replacing it), and flushes what was written without durability', async () => {
    await h.store.put('move/staged/a.bin', Readable.from([Buffer.from('archive bytes')]), { sizeBytes: 13, durable: false });
    await h.store.put('move/final/a.bin', Readable.from([Buffer.from('older')]), { sizeBytes: 5 });
    await h.store.move('move/staged/a.bin', 'move/final/a.bin', { durable: false });
    await h.store.move('move/final/a.bin', 'move/other/deeper/a.bin');
    await h.store.flush();
    expect(await h.store.head('move/staged/a.bin')).toBeNull();
    expect(await h.store.head('move/final/a.bin')).toBeNull();
    expect((await readAll((await h.store.get('move/other/deeper/a.bin'))!)).toString()).toBe('archive bytes');
    await expect(h.store.move('move/absent', 'move/anywhere')).rejects.toThrow();
    expect(await h.store.head('move/anywhere')).toBeNull();
    await h.store.flush(); // nothing pending: nothing to do
    expect(await h.leftovers()).toBe(0);
  });

  it('puts and gets small objects held whole in memory (durable or flushed later)', async () => {
    const data = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
    await h.store.putBytes('whole/a.bin', data);
    await h.store.putBytes('whole/b.bin', Buffer.from('staged'), { durable: false });
    await h.store.putBytes('whole/a.bin', Buffer.from('replaced'), { durable: false });
    await h.store.putBytes('whole/empty', Buffer.alloc(0));
    await h.store.flush();
    expect((await h.store.getBytes('whole/a.bin'))?.toString()).toBe('replaced');
    expect((await h.store.getBytes('whole/b.bin'))?.toString()).toBe('staged');
    expect((await h.store.getBytes('whole/empty'))?.length).toBe(0);
    await h.store.putBytes('whole/c.bin', data);
    expect((await h.store.getBytes('whole/c.bin'))?.equals(data)).toBe(true);
    expect(await h.store.getBytes('whole/absent')).toBeNull();
    expect(await h.store.getBytes('whole')).toBeNull(); // a "directory" of other objects is no object
    await expect(h.store.putBytes('../x', data)).rejects.toThrow(/invalid object key/);
    await expect(h.store.getBytes('a//b')).rejects.toThrow(/invalid object key/);
    expect(await h.leftovers()).toBe(0);
  });

  it('puts in place (atomic: false) for a working area: replaces what is there; a put cut short leaves nothing', async () => {
    await h.store.putBytes('inplace/a.bin', Buffer.from('first'), { atomic: false, durable: false });
    await h.store.putBytes('inplace/a.bin', Buffer.from('second'), { atomic: false, durable: false });
    await h.store.put('inplace/b.bin', Readable.from([Buffer.from('streamed')]), { sizeBytes: 8, atomic: false, durable: false });
    await h.store.put('inplace/b.bin', Readable.from([Buffer.from('again')]), { sizeBytes: 5, atomic: false });
    await h.store.flush();
    expect((await h.store.getBytes('inplace/a.bin'))?.toString()).toBe('second');
    expect((await h.store.getBytes('inplace/b.bin'))?.toString()).toBe('again');
    await expect(h.store.put('inplace/c.bin', Readable.from([Buffer.from('short')]), { sizeBytes: 9, atomic: false })).rejects.toBeInstanceOf(
      ObjectSizeMismatchError,
    );
    expect(await h.store.head('inplace/c.bin')).toBeNull();
    expect(await h.leftovers()).toBe(0);
  });

  it('reads small objects into a buffer given (a view of it), larger ones whole, absent ones as null', async () => {
    const data = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 11) % 256));
    await h.store.putBytes('into/a.bin', data);
    await h.store.putBytes('into/empty', Buffer.alloc(0));
    const buffer = Buffer.alloc(100_000);
    expect((await h.store.getBytesInto('into/a.bin', buffer))?.equals(data)).toBe(true);
    expect((await h.store.getBytesInto('into/empty', buffer))?.length).toBe(0);
    // Larger than the buffer, and exactly its size: the whole object all the same.
    expect((await h.store.getBytesInto('into/a.bin', Buffer.alloc(1000)))?.equals(data)).toBe(true);
    expect((await h.store.getBytesInto('into/a.bin', Buffer.alloc(70_000)))?.equals(data)).toBe(true);
    expect(await h.store.getBytesInto('into/absent', buffer)).toBeNull();
    expect(await h.store.getBytesInto('into', buffer)).toBeNull(); // a "directory" of other objects is no object
    await expect(h.store.getBytesInto('a//b', buffer)).rejects.toThrow(/invalid object key/);
  });

  it('lists the objects under a prefix with their modification time', async () => {
    const before = Date.now() - 5_000;
    for (const key of ['list/2026-11-20/a', 'list/2026-11-20/b', 'list/2026-11-21/c', 'listed-not/d']) {
      await h.store.put(key, Readable.from([Buffer.from('x')]), { sizeBytes: 1 });
    }
    const listed: Array<{ key: string; lastModified: Date }> = [];
    for await (const object of h.store.list('list/')) listed.push(object);
    expect(listed.map((o) => o.key).sort()).toEqual(['list/2026-11-20/a', 'list/2026-11-20/b', 'list/2026-11-21/c']);
    for (const object of listed) expect(object.lastModified.getTime()).toBeGreaterThan(before);
    const narrower: string[] = [];
    for await (const object of h.store.list('list/2026-11-21/')) narrower.push(object.key);
    expect(narrower).toEqual(['list/2026-11-21/c']);
    const none: string[] = [];
    for await (const object of h.store.list('nothing-here/')) none.push(object.key);
    expect(none).toEqual([]);
    const keys: string[] = [];
    for await (const key of h.store.listKeys('list/2026-11-2')) keys.push(key);
    expect(keys.sort()).toEqual(['list/2026-11-20/a', 'list/2026-11-20/b', 'list/2026-11-21/c']);
  });

  it('answers null for an absent key', async () => {
    expect(await h.store.get('absent/key.bin')).toBeNull();
    expect(await h.store.head('absent/key.bin')).toBeNull();
    expect(await h.store.get('absent/key.bin', { start: 0, end: 9 })).toBeNull();
    await expect(h.store.delete('absent/key.bin')).resolves.toBeUndefined();
  });

  it.each(['', '../etc/passwd', 'a/../b', 'a//b', '/a', 'a/', 'a b', 'a/./b', 'ü', 'a\\b', '~tmp/x'])('rejects the invalid key %j', async (key) => {
    await expect(h.store.put(key, Readable.from([Buffer.from('x')]), { sizeBytes: 1 })).rejects.toThrow(/invalid object key/);
    await expect(h.store.get(key)).rejects.toThrow(/invalid object key/);
    await expect(h.store.head(key)).rejects.toThrow(/invalid object key/);
    await expect(h.store.delete(key)).rejects.toThrow(/invalid object key/);
    await expect(h.store.presignGet(key, { expiresInSeconds: 60 })).rejects.toThrow(/invalid object key/);
  });

  it('presigns GET URLs (S3) or answers null (filesystem)', async () => {
    const data = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7) % 256));
    await h.store.put('dl/fw.bin', Readable.from([data]), { sizeBytes: data.length, contentType: 'application/octet-stream' });
    const url = await h.store.presignGet('dl/fw.bin', { expiresInSeconds: 300, contentType: 'application/x-firmware', filename: 'fw "1.2" ü.bin' });
    if (kind === 'filesystem') {
      expect(url).toBeNull();
      return;
    }
    expect(url).toMatch(/X-Amz-Expires=300/);
    const response = await fetch(url!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-firmware');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="fw _1.2_ _.bin"; filename*=UTF-8''fw%20%221.2%22%20%C3%BC.bin`);
    expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(sha256(data));
  });

  describe('a failing upload leaves no object', () => {
    it('input stream errors, known length', async () => {
      const body = pseudoRandomStream(8 * MiB, { failAfterBytes: 3 * MiB });
      await expect(h.store.put('fail/known', body, { sizeBytes: 8 * MiB })).rejects.toThrow('simulated upload failure');
      expect(await h.store.head('fail/known')).toBeNull();
      expect(await h.leftovers()).toBe(0);
    });

    it.each([
      ['known', 5],
      ['unknown', undefined],
    ] as const)('input stream destroyed before the put began, %s length', async (_label, sizeBytes) => {
      const body = Readable.from([Buffer.from('never stored')]);
      body.on('error', () => undefined);
      body.destroy(new Error('gone before the put'));
      await new Promise((resolve) => setImmediate(resolve)); // its error event is over
      await expect(h.store.put(`fail/destroyed-${sizeBytes ?? 'unknown'}`, body, { sizeBytes })).rejects.toThrow();
      expect(await h.store.head(`fail/destroyed-${sizeBytes ?? 'unknown'}`)).toBeNull();
      expect(await h.leftovers()).toBe(0);
    });

    it('input stream errors, unknown length, after multipart parts went out', async () => {
      const body = pseudoRandomStream(BIG, { failAfterBytes: 12 * MiB });
      await expect(h.store.put('fail/unknown', body, {})).rejects.toThrow('simulated upload failure');
      expect(await h.store.head('fail/unknown')).toBeNull();
      expect(await h.leftovers()).toBe(0);
    });

    it('body shorter or longer than announced', async () => {
      await expect(h.store.put('fail/short', pseudoRandomStream(MiB), { sizeBytes: 2 * MiB })).rejects.toBeInstanceOf(ObjectSizeMismatchError);
      await expect(h.store.put('fail/long', pseudoRandomStream(2 * MiB), { sizeBytes: MiB })).rejects.toBeInstanceOf(ObjectSizeMismatchError);
      expect(await h.store.head('fail/short')).toBeNull();
      expect(await h.store.head('fail/long')).toBeNull();
      expect(await h.leftovers()).toBe(0);
    });

    it('keeps the previous version when a replacement fails', async () => {
      await h.store.put('fail/keep', Readable.from([Buffer.from('version 1')]), { sizeBytes: 9 });
      await expect(h.store.put('fail/keep', pseudoRandomStream(4 * MiB, { failAfterBytes: MiB }), { sizeBytes: 4 * MiB })).rejects.toThrow();
      expect((await readAll((await h.store.get('fail/keep'))!)).toString('latin1').slice(0, 100)).toBe('version 1');
    });
  });
});

describe('createObjectStore', () => {
  let server: S3TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startS3Server();
    dir = await mkdtemp(join(tmpdir(), 'objects-'));
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('picks the filesystem without S3_BUCKET, one instance per configuration', () => {
    const config = loadConfig({ DATA_DIR: dir });
    const store = createObjectStore(config);
    expect(store).toBeInstanceOf(FilesystemObjectStore);
    expect((store as FilesystemObjectStore).root).toBe(join(dir, 'objects'));
    expect(createObjectStore(loadConfig({ DATA_DIR: dir }))).toBe(store);
  });

  it('picks S3 from the S3_* variables; ensureBucket creates a missing bucket', async () => {
    const store = createObjectStore(loadConfig({ DATA_DIR: dir, ...server.env }));
    expect(store).toBeInstanceOf(S3ObjectStore);
    expect(await store.check()).toBe(true);

    const other = createObjectStore(loadConfig({ DATA_DIR: dir, ...server.env, S3_BUCKET: 'created-later' })) as S3ObjectStore;
    expect(await other.check()).toBe(false);
    await other.ensureBucket();
    await other.ensureBucket(); // idempotent
    expect(await other.check()).toBe(true);
    await other.put('a/b', Readable.from([Buffer.from('hi')]), { sizeBytes: 2 });
    expect(await other.head('a/b')).toEqual({ sizeBytes: 2 });
  });

  it('signs download URLs for S3_PUBLIC_ENDPOINT when set: they work there, and the store itself keeps S3_ENDPOINT', async () => {
    // The "public" address is a second way to the same server, as a load balancer in front of
    // an in-cluster store would be; the store's own traffic goes to S3_ENDPOINT.
    const publicSide = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(server.endpoint).port) });
    const publicEndpoint = `http://127.0.0.1:${publicSide.port}`;
    const store = createObjectStore(
      loadConfig({ DATA_DIR: dir, ...server.env, S3_BUCKET: 'public-endpoint', S3_PUBLIC_ENDPOINT: `${publicEndpoint}/` }),
    ) as S3ObjectStore;
    try {
      await store.ensureBucket();
      const data = Buffer.from('firmware bytes through the public address');
      await store.put('fw/public.bin', Readable.from([data]), { sizeBytes: data.length });
      expect(publicSide.bytesUpstream).toBe(0);
      const url = await store.presignGet('fw/public.bin', { expiresInSeconds: 60 });
      expect(new URL(url!).origin).toBe(publicEndpoint);
      const response = await fetch(url!);
      expect(response.status).toBe(200);
      expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(sha256(data));
      expect(publicSide.bytesDownstream).toBeGreaterThan(data.length);
      // Without it, the URL is for S3_ENDPOINT.
      const internal = createObjectStore(loadConfig({ DATA_DIR: dir, ...server.env, S3_BUCKET: 'public-endpoint' })) as S3ObjectStore;
      expect(new URL((await internal.presignGet('fw/public.bin', { expiresInSeconds: 60 }))!).origin).toBe(server.endpoint);
    } finally {
      await publicSide.close();
    }
  });

  it('refuses an S3_PUBLIC_ENDPOINT that is not an absolute http(s) URL', () => {
    for (const bad of ['minio:9000', 'ftp://files.example.com', '/objects']) {
      expect(() => loadConfig({ DATA_DIR: dir, ...server.env, S3_PUBLIC_ENDPOINT: bad })).toThrow(
        `S3_PUBLIC_ENDPOINT must be an absolute http or https URL, got "${bad}"`,
      );
    }
  });

  it('check() answers false when S3 is unreachable', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(server.endpoint).port) });
    const store = new S3ObjectStore({ ...server.config, endpoint: `http://127.0.0.1:${proxy.port}` });
    expect(await store.check()).toBe(true);
    await proxy.close();
    expect(await store.check()).toBe(false);
    await store.close();
  });
});
