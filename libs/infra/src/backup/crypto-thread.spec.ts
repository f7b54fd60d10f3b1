import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { HashingThread } from './crypto-thread.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('HashingThread', () => {
  it('hashes many interleaved streams on its thread, each as node:crypto does in place', async () => {
    const hashing = new HashingThread();
    try {
      const bodies = [Buffer.alloc(0), randomBytes(1), randomBytes(70_000), randomBytes(3 * 1024 * 1024 + 5)];
      const streams = bodies.map(() => hashing.stream());
      // Pieces of every stream in turn, as entries of an archive would never be, to prove the ids keep them apart.
      const piece = 40_000;
      for (let at = 0; at < Math.max(...bodies.map((b) => b.length)); at += piece) {
        for (const [i, body] of bodies.entries()) if (at < body.length) await streams[i].update(body.subarray(at, at + piece));
      }
      const digests = await Promise.all(streams.map((s) => s.digest()));
      expect(digests).toEqual(bodies.map(sha256));
      expect(streams.map((s) => s.bytes)).toEqual(bodies.map((b) => b.length));
    } finally {
      await hashing.close();
    }
  });

  it('copies what it is given: the caller may reuse its buffer at once', async () => {
    const hashing = new HashingThread();
    try {
      const buffer = Buffer.alloc(1000, 1);
      const hash = hashing.stream();
      await hash.update(buffer);
      buffer.fill(2); // after update resolved, before the thread has necessarily hashed it
      await hash.update(buffer);
      expect(await hash.digest()).toBe(sha256(Buffer.concat([Buffer.alloc(1000, 1), Buffer.alloc(1000, 2)])));
    } finally {
      await hashing.close();
    }
  });

  it('fails every digest asked after it was closed', async () => {
    const hashing = new HashingThread();
    const hash = hashing.stream();
    await hash.update(Buffer.from('x'));
    await hashing.close();
    await expect(hash.digest()).rejects.toThrow(/closed/);
  });
});
