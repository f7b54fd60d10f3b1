import { createHash, createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { CryptoThread, type HashRange, SpareBuffers } from './crypto-thread.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('CryptoThread', () => {
  it('hashes the ranges of each batch it seals, and of bytes handed to it alone, stream by stream', async () => {
    const thread = new CryptoThread();
    try {
      thread.useKey(createSecretKey(randomBytes(32)));
      const a = randomBytes(100_000);
      const b = randomBytes(10);
      const spare = new SpareBuffers(1 << 20, 2);
      // Batch 1: all of b, the first part of a; then the rest of a alone (as HASH_NOW sends it); an empty stream.
      const batch = Buffer.concat([b, a.subarray(0, 60_000)]);
      const ranges: HashRange[] = [
        [1, 0, 10, true],
        [0, 10, 60_010, false],
      ];
      const sealed = await thread.seal(0, false, batch, spare, ranges);
      expect(sealed.data.length).toBe(60_010 + 16);
      expect(sealed.digests).toEqual([[1, sha256(b)]]);
      const rest = Buffer.concat([Buffer.alloc(5), a.subarray(60_000)]);
      const digests = await thread.hash(rest, [
        [0, 5, rest.length, true],
        [2, rest.length, rest.length, true],
      ]);
      expect(digests).toEqual([
        [0, sha256(a)],
        [2, sha256(Buffer.alloc(0))],
      ]);
    } finally {
      await thread.close();
    }
  });

  it('fails every request made after it was closed', async () => {
    const thread = new CryptoThread();
    await thread.close();
    await expect(thread.hash(Buffer.from('x'), [[0, 0, 1, true]])).rejects.toThrow(/closed/);
  });
});
