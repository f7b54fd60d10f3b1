/**
 * A bounded map whose entries expire: the caches of credential and customer status (gateway)
 * and of device lookups (DeviceDirectory). Bounded so that a flood of distinct keys cannot
 * grow memory; expiring so that a missed invalidation event is still honoured within the TTL.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private readonly inflight = new Map<K, Promise<V>>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, ttlMs = this.ttlMs): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  /** Forgets the entry, and a load in flight for it will not be cached (it may have read the old state). */
  delete(key: K): void {
    this.entries.delete(key);
    this.inflight.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.inflight.clear();
  }

  /** As getOrLoad, but a cached value comes back as it is, not in a promise (hot paths skip an await). */
  valueOrLoad(key: K, load: () => Promise<V>): V | Promise<V> {
    const cached = this.get(key);
    return cached !== undefined ? cached : this.getOrLoad(key, load);
  }

  /** Cached value, or the loader's (concurrent misses share one load). */
  async getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const promise: Promise<V> = load()
      .then((value) => {
        // Invalidated (delete/clear) while loading: answer this caller, but do not cache.
        if (this.inflight.get(key) === promise) this.set(key, value);
        return value;
      })
      .finally(() => {
        if (this.inflight.get(key) === promise) this.inflight.delete(key);
      });
    this.inflight.set(key, promise);
    return promise;
  }

  get size(): number {
    return this.entries.size;
  }
}
