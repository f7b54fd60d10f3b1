import type { Readable } from 'node:stream';
import { bytesOf, type ObjectStore, type PutOptions } from './object-store.js';

export interface WriteBehindOptions {
  /** Puts under way at the same time. */
  readonly concurrency: number;
  /** Objects up to this size are read into memory and put in the background; larger ones are put at once. */
  readonly maxObjectBytes: number;
  /** Bytes held in memory by puts under way at most. */
  readonly maxBufferedBytes: number;
  /** Passed to every put (e.g. `durable: false`). */
  readonly put?: Omit<PutOptions, 'sizeBytes'>;
}

/**
 * Puts many objects that arrive one after the other in a stream (a restore reading an archive):
 * a small one is read into memory and put in the background, several at a time, so the
 * reading goes on while the store writes (each put waits for a disk or a round trip of its
 * own). Memory stays within `maxBufferedBytes`. `finish()` waits for every put and throws the
 * first failure; after a failure, `add` throws it too.
 */
export class WriteBehind {
  private readonly running = new Set<Promise<void>>();
  private buffered = 0;
  private failure: Error | null = null;

  constructor(
    private readonly store: ObjectStore,
    private readonly options: WriteBehindOptions,
  ) {}

  async add(key: string, size: number, body: Readable): Promise<void> {
    this.throwIfFailed();
    if (size > this.options.maxObjectBytes) {
      await this.room(0);
      await this.store.put(key, body, { ...this.options.put, sizeBytes: size });
      return;
    }
    const data = await bytesOf(body);
    await this.room(data.length);
    this.buffered += data.length;
    if (data.length !== size) throw new Error(`${key}: ${data.length} bytes where ${size} were expected`);
    const put = this.store
      .putBytes(key, data, this.options.put)
      .catch((err: unknown) => {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
      })
      .finally(() => {
        this.buffered -= data.length;
        this.running.delete(put);
      });
    this.running.add(put);
  }

  /** Waits until one more put (holding `bytes`) fits. */
  private async room(bytes: number): Promise<void> {
    while (this.running.size >= this.options.concurrency || (this.running.size > 0 && this.buffered + bytes > this.options.maxBufferedBytes)) {
      await Promise.race(this.running);
      this.throwIfFailed();
    }
  }

  async finish(): Promise<void> {
    while (this.running.size > 0) await Promise.race(this.running);
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }
}

/** Runs `run` for each item, `concurrency` at a time; the first failure is thrown once the others have ended. */
export async function forEachConcurrently<T>(items: readonly T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === null) {
      try {
        await run(items[next++]);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (failure !== null) throw failure instanceof Error ? failure : new Error(String(failure));
}
