import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { Transform, type TransformCallback, type TransformOptions } from 'node:stream';
import { Decrypter, Encrypter, type Recipient, type Stanza } from 'age-encryption';
import { AGE_CHUNK_SIZE, AGE_TAG_SIZE, ChunkOpenError, CryptoThread, type HashRange, type SealedBatch, SpareBuffers } from './crypto-thread.js';

/**
 * The age v1 file format (https://age-encryption.org/v1), byte for byte, as streams. The
 * age-encryption library does the header: file key, recipient stanzas (X25519 wrapping),
 * header MAC and payload nonce. Only the payload (spec section "Payload") is sealed here, on a
 * worker thread (crypto-thread.ts) with node:crypto's native ChaCha20-Poly1305 (about ten times the library's pure-JS cipher, see
 * docs/performance.md): payload key = HKDF-SHA-256(ikm = file key, salt = the 16-byte nonce,
 * info = "payload"); the plaintext in 64 KiB chunks, each sealed under the 12-byte nonce
 * "11-byte big-endian chunk counter || last-chunk flag (0x01 for the last, else 0x00)"; the
 * last chunk may be short and is empty only when the whole plaintext is.
 */
const CHUNK_SIZE = AGE_CHUNK_SIZE;
const SEALED_CHUNK_SIZE = CHUNK_SIZE + AGE_TAG_SIZE;
const PAYLOAD_NONCE_SIZE = 16;
/** Longest header read (ours is one X25519 stanza, under 200 bytes). */
const MAX_HEADER_BYTES = 64 * 1024;
/** The header ends with its MAC line, "--- <base64 MAC>\n"; no earlier line starts with "---". */
const MAC_LINE_START = Buffer.from('\n---');
const VERSION_LINE = Buffer.from('age-encryption.org/v1\n');

export enum AgeFailure {
  NotAge = 'not_age',
  WrongKey = 'wrong_key',
  HeaderAltered = 'header_altered',
  /** The input ended inside the header. */
  HeaderTruncated = 'header_truncated',
  /** A chunk before the last failed authentication: altered or corrupted data. */
  ChunkAltered = 'chunk_altered',
  /** The last chunk failed authentication (or was missing): the input was cut short or its end altered. */
  FinalChunkFailed = 'final_chunk_failed',
}

export class AgeStreamError extends Error {
  constructor(
    readonly failure: AgeFailure,
    message: string,
    /** Encrypted bytes read when it failed. */
    readonly inputBytes: number,
  ) {
    super(message);
    this.name = 'AgeStreamError';
  }
}

/** Length of the header (through its MAC line) at the start of `bytes`, or -1 if it is not all there. */
function headerLength(bytes: Buffer): number {
  const macLine = bytes.indexOf(MAC_LINE_START);
  if (macLine < 0) return -1;
  const end = bytes.indexOf(0x0a, macLine + 1);
  return end < 0 ? -1 : end + 1;
}

/** As a KeyObject: a raw key given to createCipheriv is imported anew for every chunk. */
function payloadKey(fileKey: Uint8Array, nonce: Buffer): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', fileKey, nonce, 'payload', 32)));
}

/** Stream buffers of a few sealed chunks: crypto and the disk or network on either side overlap. */
const STREAM_BUFFER_BYTES = 1024 * 1024;
/** Chunks handed to the cipher thread at once (1 MiB), and batches under way at once: memory stays bounded. */
const BATCH_CHUNKS = 16;
const BATCHES_UNDER_WAY = 4;

/** A batch of whole chunks, and the parts of it to hash on the way (encrypting only). */
interface Batch {
  readonly bytes: Buffer;
  readonly ranges: HashRange[];
}

/**
 * Cuts a byte stream into batches of `size`. A full batch is handed on only once more bytes
 * follow it: the last batch (full or not) holds the last chunk, sealed and opened with the
 * last-chunk flag. Each batch is a buffer of its own, handed over to the cipher thread; bytes
 * added with a hash stream's id are noted as ranges of the batches they land in.
 */
class Batcher {
  readonly buffers: SpareBuffers;
  private buffer: Buffer;
  private used = 0;
  private ranges: HashRange[] = [];
  constructor(private readonly size: number) {
    this.buffers = new SpareBuffers(size, BATCHES_UNDER_WAY + 1);
    this.buffer = this.buffers.take();
  }
  add(data: Buffer, onFull: (batch: Batch) => void, hashId?: number): void {
    let offset = 0;
    while (offset < data.length) {
      if (this.used === this.size) onFull(this.take());
      const n = data.copy(this.buffer, this.used, offset, Math.min(data.length, offset + this.size - this.used));
      if (hashId !== undefined) this.ranges.push([hashId, this.used, this.used + n, false]);
      this.used += n;
      offset += n;
    }
  }
  /** Hash stream `hashId` ends here: its digest comes back with this batch. */
  endHash(hashId: number): void {
    this.ranges.push([hashId, this.used, this.used, true]);
  }
  /** The ranges noted so far, with a copy of the batch's bytes, to hash before the batch is full. */
  takeRanges(): Batch {
    // A buffer of its own (not from Node's pool), as it is handed over to the thread.
    const bytes = Buffer.allocUnsafeSlow(this.used);
    this.buffer.copy(bytes, 0, 0, this.used);
    const batch = { bytes, ranges: this.ranges };
    this.ranges = [];
    return batch;
  }
  /** What is held, and starts a new batch. */
  take(): Batch {
    const batch = { bytes: this.buffer.subarray(0, this.used), ranges: this.ranges };
    this.buffer = this.buffers.take();
    this.used = 0;
    this.ranges = [];
    return batch;
  }
}

/** The batches handed to the cipher thread, pushed on in their order as they come back. */
class BatchesUnderWay {
  private readonly batches: Promise<Buffer>[] = [];
  add(batch: Promise<Buffer>): void {
    batch.catch(() => undefined); // reported when its turn comes
    this.batches.push(batch);
  }
  /** Pushes the oldest results until at most `room` batches are under way. */
  async drain(room: number, push: (data: Buffer) => void): Promise<void> {
    while (this.batches.length > room) push(await this.batches.shift()!);
  }
}

function chunksIn(bytes: number, chunkSize: number): number {
  return Math.max(1, Math.ceil(bytes / chunkSize));
}

/**
 * Keeps the file key the library generates for one file: a recipient with no stanza of its own,
 * added next to the real one, so the header holds exactly the real recipient's stanza.
 */
class FileKeyObserver implements Recipient {
  fileKey: Uint8Array | null = null;
  wrapFileKey(fileKey: Uint8Array): Stanza[] {
    this.fileKey = Uint8Array.from(fileKey);
    return [];
  }
}

/** The header and payload nonce for a new file to `recipient`, and the file key, from the library. */
async function newHeader(recipient: string): Promise<{ prefix: Buffer; key: KeyObject }> {
  const observer = new FileKeyObserver();
  const encrypter = new Encrypter();
  encrypter.addRecipient(recipient);
  encrypter.addRecipient(observer);
  // A payload that never arrives: the library emits the header and nonce and seals nothing.
  const never = new ReadableStream<Uint8Array>();
  const reader = (await encrypter.encrypt(never)).getReader();
  let prefix = Buffer.alloc(0);
  let length = -1;
  while (length < 0 || prefix.length < length + PAYLOAD_NONCE_SIZE) {
    const next = await reader.read();
    if (next.done) throw new Error('age header incomplete');
    prefix = Buffer.concat([prefix, next.value]);
    length = headerLength(prefix);
  }
  await reader.cancel();
  if (!observer.fileKey) throw new Error('age file key not seen');
  const nonce = prefix.subarray(length, length + PAYLOAD_NONCE_SIZE);
  return { prefix: prefix.subarray(0, length + PAYLOAD_NONCE_SIZE), key: payloadKey(observer.fileKey, nonce) };
}

/**
 * What both directions share: the payload cut into batches of whole chunks, each handed to the
 * crypto thread (numbered by its first chunk; the last batch flagged), the answers pushed on in
 * their order, at most BATCHES_UNDER_WAY at once.
 */
abstract class PayloadStream extends Transform {
  private thread: CryptoThread | null = null;
  private readonly batches: Batcher;
  private readonly underWay = new BatchesUnderWay();
  private counter = 0;

  constructor(
    private readonly chunkSize: number,
    options: TransformOptions = {},
  ) {
    super({ readableHighWaterMark: STREAM_BUFFER_BYTES, writableHighWaterMark: STREAM_BUFFER_BYTES, ...options });
    this.batches = new Batcher(chunkSize * BATCH_CHUNKS);
  }

  /** Seals or opens one batch on the thread. */
  protected abstract process(thread: CryptoThread, counter: number, last: boolean, batch: Batch, spare: SpareBuffers): Promise<Buffer>;

  protected startPayload(key: KeyObject): void {
    this.thread = new CryptoThread();
    this.thread.useKey(key);
  }

  /** Takes payload bytes (to add to hash stream `hashId` on the way); resolves once there is room for more. */
  protected addPayload(bytes: Buffer, hashId?: number): Promise<void> {
    this.batches.add(bytes, (batch) => this.dispatch(batch, false), hashId);
    return this.underWay.drain(BATCHES_UNDER_WAY - 1, (out) => this.push(out));
  }

  protected endHash(hashId: number): void {
    this.batches.endHash(hashId);
  }

  /** Hashes what was noted so far now (the digests of streams that ended), not when its batch is sealed. */
  protected hashNow(): Promise<SealedBatch['digests']> {
    const { bytes, ranges } = this.batches.takeRanges();
    return this.thread!.hash(bytes, ranges);
  }

  /** The last batch, then everything under way pushed on; the thread ends. */
  protected async endPayload(): Promise<void> {
    this.dispatch(this.batches.take(), true);
    await this.underWay.drain(0, (out) => this.push(out));
    await this.thread!.close();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    void this.thread?.close();
    done(err);
  }

  private dispatch(batch: Batch, last: boolean): void {
    const counter = this.counter;
    this.counter += chunksIn(batch.bytes.length, this.chunkSize);
    this.underWay.add(this.process(this.thread!, counter, last, batch, this.batches.buffers));
  }
}

/**
 * Bytes written to an AgeEncryptStream to be hashed on the way (an archive entry's body): added
 * to SHA-256 stream `hash`; `end` closes that stream (its digest: `digest(hash)`, once the batch
 * it ended in is sealed, or once HASH_NOW is written after it).
 */
export interface HashedBytes {
  readonly data: Buffer;
  readonly hash: number;
  readonly end?: boolean;
}
/** Written to an AgeEncryptStream: the streams ended before it get their digests without waiting for their batch to fill. */
export const HASH_NOW = Object.freeze({ hashNow: true as const });

/** A digest to come, marked handled: a stream destroyed before it never leaves it unhandled. */
class PendingDigest {
  asked = false;
  settled = false;
  resolve: (hex: string) => void = () => undefined;
  reject: (err: Error) => void = () => undefined;
  readonly promise = new Promise<string>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });
  constructor() {
    this.promise.catch(() => undefined);
  }
}

/**
 * Encrypts to an X25519 recipient (`age1…`): plaintext in, the age file out. Besides Buffers it
 * takes HashedBytes, whose SHA-256 the cipher thread computes from the batch it seals anyway
 * (no copy, no second pass).
 */
export class AgeEncryptStream extends PayloadStream {
  private readonly digests = new Map<number, PendingDigest>();

  constructor(private readonly recipient: string) {
    // Object mode counts writes, not bytes: a few pending writes at most.
    super(CHUNK_SIZE, { writableObjectMode: true, writableHighWaterMark: 16 });
  }

  /** The SHA-256 (hex) of hash stream `id`, once the batch where it ended is sealed. */
  digest(id: number): Promise<string> {
    const pending = this.pendingDigest(id);
    pending.asked = true;
    if (pending.settled) this.digests.delete(id);
    return pending.promise;
  }

  override _construct(done: (err?: Error | null) => void): void {
    newHeader(this.recipient).then(({ prefix, key }) => {
      this.startPayload(key);
      this.push(prefix);
      done();
    }, done);
  }

  override _transform(data: Buffer | HashedBytes | typeof HASH_NOW, _enc: BufferEncoding, done: TransformCallback): void {
    if (Buffer.isBuffer(data)) {
      this.addPayload(data).then(() => done(), done);
      return;
    }
    if ('hashNow' in data) {
      // Not awaited: the thread answers in order, the writing goes on meanwhile.
      this.hashNow().then(
        (digests) => this.settle(digests),
        (err: unknown) => this.destroy(err as Error),
      );
      done();
      return;
    }
    const added = this.addPayload(data.data, data.hash);
    if (data.end) this.endHash(data.hash);
    added.then(() => done(), done);
  }

  override _flush(done: TransformCallback): void {
    this.endPayload().then(() => done(), done);
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    const reason = err ?? new Error('the encryption stream was closed');
    for (const pending of this.digests.values()) pending.reject(reason);
    super._destroy(err, done);
  }

  protected async process(thread: CryptoThread, counter: number, last: boolean, plain: Batch, spare: SpareBuffers): Promise<Buffer> {
    const sealed = await thread.seal(counter, last, plain.bytes, spare, plain.ranges);
    this.settle(sealed.digests);
    return sealed.data;
  }

  private settle(digests: SealedBatch['digests']): void {
    for (const [id, hex] of digests) {
      const pending = this.pendingDigest(id);
      pending.resolve(hex);
      pending.settled = true;
      if (pending.asked) this.digests.delete(id);
    }
  }

  private pendingDigest(id: number): PendingDigest {
    let pending = this.digests.get(id);
    if (!pending) this.digests.set(id, (pending = new PendingDigest()));
    return pending;
  }
}

/** Decrypts an age file with an X25519 identity (`AGE-SECRET-KEY-1…`); fails with AgeStreamError. */
export class AgeDecryptStream extends PayloadStream {
  private readonly decrypter = new Decrypter();
  private header: Buffer | null = Buffer.alloc(0);
  /** Encrypted bytes received. */
  inputBytes = 0;

  constructor(identity: string) {
    super(SEALED_CHUNK_SIZE);
    this.decrypter.addIdentity(identity);
  }

  override _transform(data: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.inputBytes += data.length;
    const payload = this.header ? this.readHeader(data) : Promise.resolve(data);
    payload.then((bytes) => (bytes ? this.addPayload(bytes) : undefined)).then(() => done(), done);
  }

  override _flush(done: TransformCallback): void {
    if (this.header) {
      done(this.fail(AgeFailure.HeaderTruncated, `the input ends after ${this.inputBytes} bytes, inside the age header`));
      return;
    }
    this.endPayload().then(() => done(), done);
  }

  /** Collects the header and nonce; once both are in, derives the key and returns the bytes after them. */
  private async readHeader(data: Buffer): Promise<Buffer | null> {
    const bytes = Buffer.concat([this.header!, data]);
    const start = Math.min(bytes.length, VERSION_LINE.length);
    if (!bytes.subarray(0, start).equals(VERSION_LINE.subarray(0, start))) throw this.fail(AgeFailure.NotAge, 'not an age file (no age v1 version line)');
    const length = headerLength(bytes);
    if (length < 0 || bytes.length < length + PAYLOAD_NONCE_SIZE) {
      if (bytes.length > MAX_HEADER_BYTES) throw this.fail(AgeFailure.NotAge, 'no age header in the first 64 KiB');
      this.header = bytes;
      return null;
    }
    let fileKey: Uint8Array;
    try {
      fileKey = await this.decrypter.decryptHeader(bytes.subarray(0, length));
    } catch (err) {
      // The library reports these only as messages.
      const message = (err as Error).message ?? String(err);
      if (message.includes('no identity matched')) throw this.fail(AgeFailure.WrongKey, 'the file was not encrypted for this key');
      if (message.includes('header HMAC')) throw this.fail(AgeFailure.HeaderAltered, 'the age header was altered (header authentication failed)');
      throw this.fail(AgeFailure.NotAge, `not an age file (${message})`);
    }
    this.startPayload(payloadKey(fileKey, bytes.subarray(length, length + PAYLOAD_NONCE_SIZE)));
    this.header = null;
    return bytes.subarray(length + PAYLOAD_NONCE_SIZE);
  }

  protected async process(thread: CryptoThread, counter: number, last: boolean, sealed: Batch, spare: SpareBuffers): Promise<Buffer> {
    const inputBytes = this.inputBytes;
    try {
      return await thread.open(counter, last, sealed.bytes, spare);
    } catch (err) {
      if (!(err instanceof ChunkOpenError)) throw err;
      const { chunk, last: lastChunk, reason } = err.failure;
      const what = `chunk ${counter + chunk} (${lastChunk ? 'the last' : 'not the last'}, ${inputBytes} encrypted bytes read)`;
      const failure = lastChunk ? AgeFailure.FinalChunkFailed : AgeFailure.ChunkAltered;
      const problem = { short: 'is shorter than its authentication tag', unauthentic: 'does not authenticate', empty: 'is empty' }[reason];
      throw this.fail(failure, `${what} ${problem}`);
    }
  }

  private fail(failure: AgeFailure, message: string): AgeStreamError {
    return new AgeStreamError(failure, message, this.inputBytes);
  }
}
