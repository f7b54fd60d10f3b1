import type { Readable } from 'node:stream';
import type { ObjectStore } from './object-store.js';

export interface ReadAheadOptions {
  /** Objects read at the same time. */
  readonly concurrency: number;
  /** Objects up to this size are read whole, ahead of their turn; larger ones are streamed at their turn. */
  readonly maxObjectBytes: number;
  /** Bytes held ahead at most (the objects read whole and not yet handed on). */
  readonly maxBufferedBytes: number;
  /**
   * Read the small objects into buffers used again (ObjectStore.getBytesInto): an item's bytes
   * are then the caller's only until it asks for the next item. Spares a run over thousands
   * of files a fresh buffer each (and the garbage collections they bring).
   */
  readonly reuseBuffers?: boolean;
}

export interface ReadAheadItem<T> {
  readonly ref: T;
  /** The object: whole (small ones) or as a stream (large ones); null when absent. */
  readonly body: Buffer | Readable | null;
}

/**
 * Hands on the objects `refs` name, in their order, reading the small ones ahead of their turn
 * several at a time: a run over many small files (a backup) then waits for no single read,
 * whatever each read's latency (a disk seek, an S3 round trip). Memory stays within
 * `maxBufferedBytes` plus one large object's stream buffer. A read that fails fails at its turn.
 */
export async function* readAhead<T extends { readonly key: string; readonly size: number }>(
  store: ObjectStore,
  refs: AsyncIterable<T>,
  options: ReadAheadOptions,
): AsyncGenerator<ReadAheadItem<T>> {
  const source = refs[Symbol.asyncIterator]();
  const queue: Array<{ ref: T; whole: Promise<Buffer | null> | null; buffer: Buffer | null }> = [];
  const spareBuffers: Buffer[] = [];
  let buffered = 0;
  let exhausted = false;
  const fill = async (): Promise<void> => {
    // Nothing is read past a large object waiting for its turn.
    while (!exhausted && queue.length < options.concurrency && buffered < options.maxBufferedBytes && queue.every((q) => q.whole !== null)) {
      const next = await source.next();
      if (next.done) {
        exhausted = true;
        return;
      }
      const ref = next.value;
      const small = ref.size <= options.maxObjectBytes;
      const buffer = small && options.reuseBuffers ? (spareBuffers.pop() ?? Buffer.allocUnsafeSlow(options.maxObjectBytes)) : null;
      const whole = small ? (buffer ? store.getBytesInto(ref.key, buffer) : store.getBytes(ref.key)) : null;
      whole?.catch(() => undefined); // reported at its turn; never unhandled if the run stops first
      if (small) buffered += ref.size;
      queue.push({ ref, whole, buffer });
    }
  };
  try {
    for (;;) {
      await fill();
      const head = queue.shift();
      if (!head) return;
      if (head.whole) {
        const body = await head.whole;
        buffered -= head.ref.size;
        yield { ref: head.ref, body };
        // The next item was asked for: the caller is done with this one's bytes.
        if (head.buffer) spareBuffers.push(head.buffer);
      } else {
        yield { ref: head.ref, body: await store.get(head.ref.key) };
      }
    }
  } finally {
    await source.return?.();
  }
}
