import type { KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** The age payload's plaintext chunk and authentication tag sizes. */
export const AGE_CHUNK_SIZE = 64 * 1024;
export const AGE_TAG_SIZE = 16;

/**
 * The archive's cryptography on worker threads: sealing and opening the chunks of an age payload
 * (age-stream.ts) and the SHA-256 of each entry (backup-archive.ts), so that they run on the
 * other core while the event loop reads, packs and writes (the backup's and the restore's
 * throughput, docs/performance.md). Requests go over in order; the worker answers each in order.
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
function seal(m) {
  const plain = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
  const chunks = Math.max(1, Math.ceil(plain.length / CHUNK));
  const out = Buffer.allocUnsafeSlow(plain.length + chunks * TAG);
  let at = 0;
  for (let i = 0; i < chunks; i++) {
    const cipher = createCipheriv('chacha20-poly1305', key, nonce(m.counter + i, m.last && i === chunks - 1), { authTagLength: TAG });
    at += cipher.update(plain.subarray(i * CHUNK, (i + 1) * CHUNK)).copy(out, at);
    cipher.final();
    at += cipher.getAuthTag().copy(out, at);
  }
  return { data: out, spent: m.data };
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
function hash(m) {
  let h = hashes.get(m.id);
  if (!h) hashes.set(m.id, (h = createHash('sha256')));
  h.update(m.data);
  return {};
}
function digest(m) {
  const h = hashes.get(m.id) || createHash('sha256');
  hashes.delete(m.id);
  return { hex: h.digest('hex') };
}
const OPS = { seal, open, hash, digest, key: (m) => ((key = m.key), {}) };
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

interface Reply {
  readonly data?: Uint8Array;
  readonly spent?: Uint8Array;
  readonly hex?: string;
  readonly failed?: ChunkOpenFailure;
  readonly error?: string;
}

/** One worker thread; its requests are answered in order. */
export class CryptoThread {
  private readonly worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { chunkSize: AGE_CHUNK_SIZE, tagSize: AGE_TAG_SIZE } });
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
  async seal(counter: number, last: boolean, plain: Buffer, spare: SpareBuffers): Promise<Buffer> {
    return this.batch('seal', counter, last, plain, spare);
  }

  /** Opens a batch of sealed chunks (as `seal`); rejects with ChunkOpenError naming the first that fails. */
  async open(counter: number, last: boolean, sealed: Buffer, spare: SpareBuffers): Promise<Buffer> {
    return this.batch('open', counter, last, sealed, spare);
  }

  private async batch(op: 'seal' | 'open', counter: number, last: boolean, data: Buffer, spare: SpareBuffers): Promise<Buffer> {
    const reply = await this.request({ op, counter, last, data }, [data.buffer as ArrayBuffer]);
    if (reply.spent) spare.giveBack(asBuffer(reply.spent));
    if (reply.failed) throw new ChunkOpenError(reply.failed);
    return asBuffer(reply.data!);
  }

  /** Adds `data` to the SHA-256 of stream `id`; `data` is handed over to the thread. */
  async hash(id: number, data: Uint8Array): Promise<void> {
    await this.request({ op: 'hash', id, data }, [data.buffer as ArrayBuffer]);
  }

  /** The SHA-256 (hex) of what stream `id` was given, once every earlier request is done. */
  async digest(id: number): Promise<string> {
    return (await this.request({ op: 'digest', id })).hex!;
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

/** Bytes handed to the hashing thread and not hashed yet, at most: memory stays bounded. */
const MAX_HASH_BYTES_UNDER_WAY = 16 * 1024 * 1024;

/** SHA-256 of many byte streams (an archive's entries), on a thread of its own. */
export class HashingThread {
  private readonly thread = new CryptoThread();
  private nextId = 0;
  private bytesUnderWay = 0;
  /** The updates not answered yet, oldest first (the thread answers in order). */
  private readonly underWay: Promise<void>[] = [];

  /** A new stream to hash: feed it with `update`, then ask for its `digest`. */
  stream(): ThreadHash {
    return new ThreadHash(this, this.nextId++);
  }

  /** Copies `chunk` over (the caller keeps using it); waits only while too much is under way. */
  async update(id: number, chunk: Uint8Array): Promise<void> {
    const bytes = chunk.length;
    this.bytesUnderWay += bytes;
    const done = this.thread.hash(id, new Uint8Array(chunk)).finally(() => {
      this.bytesUnderWay -= bytes;
      void this.underWay.shift(); // the oldest: answers come in order
    });
    done.catch(() => undefined); // a failure is reported by the digest
    this.underWay.push(done);
    while (this.bytesUnderWay > MAX_HASH_BYTES_UNDER_WAY) await this.underWay[0].catch(() => undefined);
  }

  digest(id: number): Promise<string> {
    return this.thread.digest(id);
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

export class ThreadHash {
  /** Bytes given. */
  bytes = 0;
  constructor(
    private readonly thread: HashingThread,
    private readonly id: number,
  ) {}
  update(chunk: Uint8Array): Promise<void> {
    this.bytes += chunk.length;
    return this.thread.update(this.id, chunk);
  }
  digest(): Promise<string> {
    return this.thread.digest(this.id);
  }
}
