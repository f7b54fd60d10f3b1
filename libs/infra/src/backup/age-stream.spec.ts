import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from '@jest/globals';
import { Decrypter, Encrypter, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { AgeDecryptStream, AgeEncryptStream, AgeFailure, AgeStreamError } from './age-stream.js';

const KiB = 1024;
const SEALED_CHUNK = 64 * KiB + 16;

async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** Feeds `data` in pieces of `piece` bytes (so chunk boundaries fall inside writes). */
function pieces(data: Buffer, piece = 10_000): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += piece) parts.push(data.subarray(i, i + piece));
  return Readable.from(parts);
}

async function ours(recipient: string, plain: Buffer): Promise<Buffer> {
  const out = new AgeEncryptStream(recipient);
  const [bytes] = await Promise.all([collect(out), pipeline(pieces(plain), out)]);
  return bytes;
}

async function oursOpen(identity: string, encrypted: Buffer): Promise<Buffer> {
  const out = new AgeDecryptStream(identity);
  const [bytes] = await Promise.all([collect(out), pipeline(pieces(encrypted, 7_777), out)]);
  return bytes;
}

async function failureOf(promise: Promise<unknown>): Promise<AgeFailure> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AgeStreamError);
  return (err as AgeStreamError).failure;
}

describe('age stream (age v1 with a native payload cipher)', () => {
  // Past 1 MiB the chunks go to the cipher thread in several batches, several under way at once.
  const sizes = [0, 1, 64 * KiB - 1, 64 * KiB, 64 * KiB + 1, 128 * KiB, 300 * KiB + 5, 1024 * KiB, 1024 * KiB + 1, 5 * 1024 * KiB + 3];

  it.each(sizes)('what it encrypts, age-encryption decrypts (%i bytes)', async (size) => {
    const identity = await generateX25519Identity();
    const plain = randomBytes(size);
    const encrypted = await ours(await identityToRecipient(identity), plain);
    expect(encrypted.subarray(0, 22).toString()).toBe('age-encryption.org/v1\n');
    const decrypter = new Decrypter();
    decrypter.addIdentity(identity);
    expect(Buffer.from(await decrypter.decrypt(encrypted)).equals(plain)).toBe(true);
  });

  it.each(sizes)('what age-encryption encrypts, it decrypts (%i bytes)', async (size) => {
    const identity = await generateX25519Identity();
    const plain = randomBytes(size);
    const encrypter = new Encrypter();
    encrypter.addRecipient(await identityToRecipient(identity));
    const encrypted = Buffer.from(await encrypter.encrypt(plain));
    expect((await oursOpen(identity, encrypted)).equals(plain)).toBe(true);
  });

  it('has the size of the age format: header, nonce, one tag per 64 KiB chunk', async () => {
    const identity = await generateX25519Identity();
    const recipient = await identityToRecipient(identity);
    const encrypter = new Encrypter();
    encrypter.addRecipient(recipient);
    for (const size of [0, 64 * KiB, 128 * KiB + 3]) {
      const plain = randomBytes(size);
      const theirs = await encrypter.encrypt(plain);
      expect((await ours(recipient, plain)).length).toBe(theirs.length);
    }
  });

  it('uses a new file key and nonce for every file', async () => {
    const recipient = await identityToRecipient(await generateX25519Identity());
    const plain = Buffer.alloc(100);
    const [a, b] = await Promise.all([ours(recipient, plain), ours(recipient, plain)]);
    expect(a.equals(b)).toBe(false);
    expect(a.subarray(-116).equals(b.subarray(-116))).toBe(false);
  });

  it('refuses a wrong key, an altered header, an altered chunk and a cut-short file', async () => {
    const identity = await generateX25519Identity();
    const other = await generateX25519Identity();
    const plain = randomBytes(200 * KiB);
    const encrypted = await ours(await identityToRecipient(identity), plain);
    const headerAndNonce = encrypted.length - plain.length - 4 * 16;

    expect(await failureOf(oursOpen(other, encrypted))).toBe(AgeFailure.WrongKey);

    const header = Buffer.from(encrypted);
    const inMac = headerAndNonce - 30; // a base64 character of the MAC line, changed to another
    header[inMac] = header[inMac] === 0x41 ? 0x42 : 0x41;
    expect(await failureOf(oursOpen(identity, header))).toBe(AgeFailure.HeaderAltered);

    const middle = Buffer.from(encrypted);
    middle[headerAndNonce + SEALED_CHUNK + 5] ^= 0x01;
    expect(await failureOf(oursOpen(identity, middle))).toBe(AgeFailure.ChunkAltered);

    // Cut at a chunk boundary: every chunk left authenticates, but none has the last-chunk flag.
    for (const chunks of [1, 2, 3]) {
      const cut = encrypted.subarray(0, headerAndNonce + chunks * SEALED_CHUNK);
      expect(await failureOf(oursOpen(identity, cut))).toBe(AgeFailure.FinalChunkFailed);
    }
    expect(await failureOf(oursOpen(identity, encrypted.subarray(0, encrypted.length - 1000)))).toBe(AgeFailure.FinalChunkFailed);
    expect(await failureOf(oursOpen(identity, encrypted.subarray(0, headerAndNonce)))).toBe(AgeFailure.FinalChunkFailed);
    expect(await failureOf(oursOpen(identity, encrypted.subarray(0, 100)))).toBe(AgeFailure.HeaderTruncated);
    expect(await failureOf(oursOpen(identity, randomBytes(1000)))).toBe(AgeFailure.NotAge);
    expect(await failureOf(oursOpen(identity, Buffer.from('age-encryption.org/v1\n-> X25519 x\n\n--- abc\n' + 'x'.repeat(40))))).toBe(AgeFailure.NotAge);
    expect(await failureOf(oursOpen(identity, randomBytes(70 * KiB)))).toBe(AgeFailure.NotAge);
  });

  it('names the chunk that fails in a later batch, and the cut-short end of a long file', async () => {
    const identity = await generateX25519Identity();
    const plain = randomBytes(3 * 1024 * KiB + 7);
    const encrypted = await ours(await identityToRecipient(identity), plain);
    const headerAndNonce = encrypted.length - plain.length - 49 * 16;

    const altered = Buffer.from(encrypted);
    altered[headerAndNonce + 37 * SEALED_CHUNK + 100] ^= 0x80;
    const err = await oursOpen(identity, altered).catch((e: unknown) => e as AgeStreamError);
    expect(err).toBeInstanceOf(AgeStreamError);
    expect((err as AgeStreamError).failure).toBe(AgeFailure.ChunkAltered);
    expect((err as AgeStreamError).message).toMatch(/^chunk 37 \(not the last, \d+ encrypted bytes read\) does not authenticate$/);

    expect(await failureOf(oursOpen(identity, encrypted.subarray(0, headerAndNonce + 32 * SEALED_CHUNK)))).toBe(AgeFailure.FinalChunkFailed);
  });
});
