import type { KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** The age payload's plaintext chunk and authentication tag sizes. */
export const AGE_CHUNK_SIZE = 64 * 1024;
export const AGE_TAG_SIZE = 16;

/**
 * The archive's cryptography on a worker thread: sealing and opening the chunks of an age
 * payload (age-stream.ts) and, when sealing, the SHA-256 of the archive's entries in the batch
 * (backup-archive.ts), so that they run on the other core while the event loop reads, packs
 * and writes (the backup's and the restore's throughput, docs/performance.md). A batch's
 * buffer is handed over, not copied. Requests go over in order; the worker answers each in order.
 *
 * The worker's code is a self-contained script (node:crypto only), run with `eval`: the same
 * code runs from the compiled service and from the TypeScript sources under the tests.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createCipheriv, createDecipheriv, createHash } = require('node:crypto');
const CHUNK = workerData.chunkSize;
const TAG = workerData.tagSize;
let key = null;
const hashes = new Map();
function nonce(counter, last) {
  const n = Buffer.alloc(12);
  n.writeUIntBE(counter, 5, 6);
  n[11] = last ? 1 : 0;
  return n;
}
// Adds ranges [stream id, start, end, ends the stream] of a batch to their streams' SHA-256.
function hashRanges(bytes, ranges) {
  const digests = [];
  for (const [id, start, end, final] of ranges) {
    let h = hashes.get(id);
    if (!h) hashes.set(id, (h = createHash('sha256')));
    h.update(bytes.subarray(start, end));
    if (final) {
      digests.push([id, h.digest('hex')]);
      hashes.delete(id);
    }
  }
  return digests;
}
function hash(m) {
  return { digests: hashRanges(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength), m.ranges) };
}
function seal(m) {
  const plain = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
  // The entries' SHA-256 first, then the chunks.
  const digests = hashRanges(plain, m.ranges);
  const chunks = Math.max(1, Math.ceil(plain.length / CHUNK));
  const out = Buffer.allocUnsafeSlow(plain.length + chunks * TAG);
  let at = 0;
  for (let i = 0; i < chunks; i++) {
    const cipher = createCipheriv('chacha20-poly1305', key, nonce(m.counter + i, m.last && i === chunks - 1), { authTagLength: TAG });
    at += cipher.update(plain.subarray(i * CHUNK, (i + 1) * CHUNK)).copy(out, at);
    cipher.final();
    at += cipher.getAuthTag().copy(out, at);
  }
  return { data: out, spent: m.data, digests };
}
function open(m) {
  const sealed = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
  const chunks = Math.max(1, Math.ceil(sealed.length / (CHUNK + TAG)));
  const out = Buffer.allocUnsafeSlow(Math.max(0, sealed.length - chunks * TAG));
  let at = 0;
  for (let i = 0; i < chunks; i++) {
    const last = m.last && i === chunks - 1;
    const one = sealed.subarray(i * (CHUNK + TAG), (i + 1) * (CHUNK + TAG));
    if (one.length < TAG) return { failed: { chunk: i, last, reason: 'short' } };
    const decipher = createDecipheriv('chacha20-poly1305', key, nonce(m.counter + i, last), { authTagLength: TAG });
    decipher.setAuthTag(one.subarray(one.length - TAG));
    const plain = decipher.update(one.subarray(0, one.length - TAG));
    try {
      decipher.final();
    } catch {
      return { failed: { chunk: i, last, reason: 'unauthentic' } };
    }
    if (last && plain.length === 0 && m.counter + i > 0) return { failed: { chunk: i, last, reason: 'empty' } };
    at += plain.copy(out, at);
  }
  return { data: out, spent: m.data };
}
const OPS = { seal, open, hash, key: (m) => ((key = m.key), {}) };
parentPort.on('message', (m) => {
  let reply;
  try {
    reply = OPS[m.op](m);
  } catch (err) {
    reply = { error: String((err && err.message) || err) };
  }
  // The batch's own buffer goes back with the answer, for the next batch.
  parentPort.postMessage(reply, [reply.data, reply.spent].filter(Boolean).map((b) => b.buffer));
});
`;

/** Why a chunk of a batch did not open. */
export interface ChunkOpenFailure {
  /** Index of the chunk within its batch. */
  readonly chunk: number;
  readonly last: boolean;
  readonly reason: 'short' | 'unauthentic' | 'empty';
}

export class ChunkOpenError extends Error {
  constructor(readonly failure: ChunkOpenFailure) {
    super(`chunk ${failure.chunk} of the batch did not open (${failure.reason})`);
    this.name = 'ChunkOpenError';
  }
}

/**
 * A part of a batch to add to the SHA-256 of stream `id` (an archive entry): bytes `start` to
 * `end` of the batch; `final` when the stream ends there (its digest comes back with the batch).
 */
export type HashRange = readonly [id: number, start: number, end: number, final: boolean];

/** A sealed batch, and the digests of the hashed streams that ended in it. */
export interface SealedBatch {
  readonly data: Buffer;
  readonly digests: ReadonlyArray<readonly [id: number, sha256: string]>;
}

interface BatchRequest {
  readonly op: 'seal' | 'open';
  readonly counter: number;
  readonly last: boolean;
  readonly data: Buffer;
  readonly ranges?: readonly HashRange[];
}

interface Reply {
  readonly data?: Uint8Array;
  readonly spent?: Uint8Array;
  readonly digests?: ReadonlyArray<readonly [number, string]>;
  readonly failed?: ChunkOpenFailure;
  readonly error?: string;
}

/**
 * The worker's heap: it holds a few hashes and messages, while a batch's output buffers and
 * the cipher's per-chunk ones (outside the heap, 2 MiB per batch) die at once. With external
 * memory counted in the heap's overall limit (service-runtime.ts), a worker's default limits let
 * a few hundred MB of them pile up between collections; small limits collect them every few
 * batches (bench:backup: the backup's peak RSS growth 175 MiB instead of 223-295).
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 };

/** One worker thread; its requests are answered in order. */
export class CryptoThread {
  private readonly worker = new Worker(WORKER_SOURCE, {
    eval: true,
    resourceLimits: WORKER_HEAP,
    workerData: { chunkSize: AGE_CHUNK_SIZE, tagSize: AGE_TAG_SIZE },
  });
  /** The callers waiting for an answer, in the order of their requests. */
  private readonly waiting: Array<{ resolve: (reply: Reply) => void; reject: (err: Error) => void }> = [];
  private broken: Error | null = null;

  constructor() {
    this.worker.on('message', (reply: Reply) => this.waiting.shift()?.resolve(reply));
    this.worker.on('error', (err) => this.fail(err as Error));
    this.worker.on('exit', (code) => this.fail(new Error(`the crypto thread ended (exit code ${code})`)));
  }

  /** The payload key for the chunks sealed or opened after. */
  useKey(key: KeyObject): void {
    this.request({ op: 'key', key }).catch(() => undefined); // a failure reaches the next request too
  }

  /**
   * Seals a batch of plaintext chunks (all full but, when `last`, the final one) numbered from
   * `counter`. The batch's buffer is handed over to the thread and given back to `spare` with
   * the answer: fresh buffers of a megabyte cost page faults and garbage collections.
   */
  async seal(counter: number, last: boolean, plain: Buffer, spare: SpareBuffers, ranges: readonly HashRange[] = []): Promise<SealedBatch> {
    const reply = await this.batch({ op: 'seal', counter, last, data: plain, ranges }, spare);
    return { data: asBuffer(reply.data!), digests: reply.digests ?? [] };
  }

  /** Opens a batch of sealed chunks (as `seal`); rejects with ChunkOpenError naming the first that fails. */
  async open(counter: number, last: boolean, sealed: Buffer, spare: SpareBuffers): Promise<Buffer> {
    const reply = await this.batch({ op: 'open', counter, last, data: sealed }, spare);
    if (reply.failed) throw new ChunkOpenError(reply.failed);
    return asBuffer(reply.data!);
  }

  /**
   * Adds ranges of `bytes` (handed over) to their hash streams now, without sealing anything:
   * the digests of streams that end in a batch not yet full.
   */
  async hash(bytes: Buffer, ranges: readonly HashRange[]): Promise<SealedBatch['digests']> {
    return (await this.request({ op: 'hash', data: bytes, ranges }, [bytes.buffer as ArrayBuffer])).digests ?? [];
  }

  private async batch(message: BatchRequest, spare: SpareBuffers): Promise<Reply> {
    const reply = await this.request(message, [message.data.buffer as ArrayBuffer]);
    if (reply.spent) spare.giveBack(asBuffer(reply.spent));
    return reply;
  }

  async close(): Promise<void> {
    this.broken ??= new Error('the crypto thread was closed');
    await this.worker.terminate();
  }

  private request(message: object, transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise<Reply>((resolve, reject) => {
      this.waiting.push({ resolve: (reply) => (reply.error ? reject(new Error(reply.error)) : resolve(reply)), reject });
      this.worker.postMessage(message, transfer);
    });
  }

  private fail(err: Error): void {
    this.broken ??= err;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.broken);
  }
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Batch buffers of one size, used again once the thread gives them back. */
export class SpareBuffers {
  private readonly spare: Buffer[] = [];
  constructor(
    readonly size: number,
    private readonly keep: number,
  ) {}
  take(): Buffer {
    return this.spare.pop() ?? Buffer.allocUnsafeSlow(this.size);
  }
  giveBack(used: Buffer): void {
    const whole = Buffer.from(used.buffer, 0, used.buffer.byteLength);
    if (whole.length === this.size && this.spare.length < this.keep) this.spare.push(whole);
  }
}
