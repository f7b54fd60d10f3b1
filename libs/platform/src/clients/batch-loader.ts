/** Loads many keys of one group at once; answers in the order of `keys`, one per key. */
export type LoadMany<G, K, V> = (group: G, keys: readonly K[]) => Promise<readonly V[]>;

interface Waiter<V> {
  resolve(value: V): void;
  reject(reason: unknown): void;
}

/**
 * Collects the loads asked for during one event-loop turn and sends them at its end
 * (setImmediate), one `loadMany` per group and per `maxBatch` keys, instead of one request
 * per key. A load asked for alone waits for nothing: the check phase directly follows the
 * poll phase that asked. Loads of the same key in one turn share one slot. A failed or
 * malformed batch rejects every load in it.
 */
export class BatchLoader<G, K, V> {
  private pending = new Map<G, Map<K, Waiter<V>[]>>();
  private scheduled = false;

  constructor(
    private readonly loadMany: LoadMany<G, K, V>,
    private readonly maxBatch: number,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer, got ${maxBatch}`);
  }

  load(group: G, key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      let keys = this.pending.get(group);
      if (!keys) this.pending.set(group, (keys = new Map<K, Waiter<V>[]>()));
      const waiters = keys.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else keys.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.dispatch());
      }
    });
  }

  private dispatch(): void {
    const batches = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const [group, waitersByKey] of batches) {
      const keys = [...waitersByKey.keys()];
      for (let at = 0; at < keys.length; at += this.maxBatch) {
        const chunk = keys.slice(at, at + this.maxBatch);
        this.send(group, chunk, waitersByKey);
      }
    }
  }

  private send(group: G, keys: readonly K[], waitersByKey: Map<K, Waiter<V>[]>): void {
    const settle = (each: (waiter: Waiter<V>, index: number) => void): void => {
      keys.forEach((key, index) => {
        for (const waiter of waitersByKey.get(key)!) each(waiter, index);
      });
    };
    let answer: Promise<readonly V[]>;
    try {
      answer = this.loadMany(group, keys);
    } catch (err) {
      settle((waiter) => waiter.reject(err));
      return;
    }
    answer.then(
      (values) => {
        if (!Array.isArray(values) || values.length !== keys.length) {
          const err = new Error(`a batch of ${keys.length} loads was answered with ${Array.isArray(values) ? values.length : typeof values} values`);
          settle((waiter) => waiter.reject(err));
          return;
        }
        settle((waiter, index) => waiter.resolve(values[index] as V));
      },
      (err: unknown) => settle((waiter) => waiter.reject(err)),
    );
  }
}
