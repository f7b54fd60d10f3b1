import { Readable } from 'node:stream';

export interface StoredObjectInfo {
  readonly sizeBytes: number;
}

/** One object as list() reports it. */
export interface ListedObject {
  readonly key: string;
  readonly lastModified: Date;
}

export interface ObjectRange {
  /** Inclusive byte offsets, already validated against the object's size. */
  readonly start: number;
  readonly end: number;
}

export interface PutOptions {
  readonly sizeBytes?: number;
  readonly contentType?: string;
  /**
   * false: resolve once the object is in place but maybe not yet on disk; {@link ObjectStore.flush}
   * makes it durable. For many objects written in a row (a restore): one flush at the end costs
   * far less than a disk flush per object. Default true.
   */
  readonly durable?: boolean;
  /**
   * false: the key may show a partly written object while the put runs, and one cut short is
   * removed (filesystem: written in place, without a temp file and a rename). Only for keys
   * nothing else reads meanwhile (a run's own working area). Default true.
   */
  readonly atomic?: boolean;
}

export interface PresignOptions {
  readonly expiresInSeconds: number;
  readonly contentType?: string;
  readonly filename?: string;
}

/**
 * Where file bodies live. Adapters: a directory under DATA_DIR (embedded) and S3.
 * Keys are `/`-separated, made of [A-Za-z0-9._-] segments; adapters reject anything else.
 */
export abstract class ObjectStore {
  /** Human name for /status ("filesystem" or "s3"). */
  abstract readonly kind: 'filesystem' | 's3';

  /**
   * Stores a stream. `sizeBytes` is given when known (Content-Length); without it the
   * adapter must still stream (S3: multipart). Resolves once the object is durable (unless
   * `durable: false`).
   */
  abstract put(key: string, body: Readable, options: PutOptions): Promise<void>;

  /**
   * Moves an object to another key, replacing what is there (filesystem: a rename; S3: a
   * server-side copy, then the delete: objects up to 5 GiB). Durable when it resolves unless
   * `durable: false`. Throws when `from` is absent.
   */
  abstract move(from: string, to: string, options?: { durable?: boolean }): Promise<void>;

  /** Makes every put and move done so far with `durable: false` durable (S3: they already are). */
  abstract flush(): Promise<void>;

  /** Streams an object or a range of it; null when absent. */
  abstract get(key: string, range?: ObjectRange): Promise<Readable | null>;
  /**
   * A small object's bytes, whole; null when absent. For runs over many small objects (a
   * backup): an adapter may read it in one go, without a stream (filesystem: one readFile).
   */
  async getBytes(key: string): Promise<Buffer | null> {
    const body = await this.get(key);
    return body ? bytesOf(body) : null;
  }
  /**
   * As getBytes, but an adapter may read the object into `buffer` (when it fits) and return a
   * view of it, which the caller owns only until it uses `buffer` again: a run over many small
   * objects (a backup) then allocates nothing per object. Here: getBytes.
   */
  async getBytesInto(key: string, _buffer: Buffer): Promise<Buffer | null> {
    return this.getBytes(key);
  }
  /** Stores bytes held in memory, as `put` does (a restore writing many small objects). */
  async putBytes(key: string, data: Buffer, options: Omit<PutOptions, 'sizeBytes'> = {}): Promise<void> {
    await this.put(key, Readable.from([data]), { ...options, sizeBytes: data.length });
  }

  abstract head(key: string): Promise<StoredObjectInfo | null>;

  /** Idempotent: deleting an absent key succeeds. */
  abstract delete(key: string): Promise<void>;

  /** A pre-signed GET URL, or null when the store cannot make one (filesystem: the gateway streams). */
  abstract presignGet(key: string, options: PresignOptions): Promise<string | null>;

  /** Every object whose key starts with `prefix` (e.g. `uploads/`), in pages; no order promised. */
  abstract list(prefix: string): AsyncIterable<ListedObject>;

  /** As list, the keys only: an adapter may skip what it reads per object for the rest (filesystem: a stat). */
  async *listKeys(prefix: string): AsyncIterable<string> {
    for await (const object of this.list(prefix)) yield object.key;
  }

  /** Readiness probe: the store answers. */
  abstract check(): Promise<boolean>;
}

/** A stream's bytes, whole (for objects known to be small); a stream of one chunk gives that chunk, not a copy. */
export async function bytesOf(body: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) parts.push(chunk);
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

const KEY_PATTERN = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;
export function assertObjectKey(key: string): void {
  if (!KEY_PATTERN.test(key) || key.split('/').some((s) => s === '.' || s === '..')) {
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  }
}
