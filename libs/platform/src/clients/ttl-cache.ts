interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * A bounded map of expiring entries under a two-part key: a group (the customer, say) and a
 * key within it. Bounded so that a flood of distinct keys cannot grow memory (past the bound,
 * the oldest entry of the oldest group goes); expiring so that a missed invalidation event is
 * still honoured within the TTL; a whole group is forgotten in O(1).
 *
 * Why two levels rather than one Map under a joined key: building `${group}\0${key}` for
 * every lookup costs a fresh string to flatten and hash (about 0.35 µs each, measured with
 * Node 20), while a group that is the same string object every time has its hash cached and
 * the key is usually short. The update check does several such lookups per request.
 */
export class GroupedTtlCache<G, K, V> {
  private readonly groups = new Map<G, Map<K, Entry<V>>>();
  private readonly inflight = new Map<G, Map<K, Promise<V>>>();
  private count = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(group: G, key: K): V | undefined {
    const entries = this.groups.get(group);
    if (!entries) return undefined;
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(group, entries, key);
      return undefined;
    }
    return entry.value;
  }

  set(group: G, key: K, value: V, ttlMs = this.ttlMs): void {
    if (ttlMs <= 0) return;
    const existing = this.groups.get(group);
    if (existing) this.remove(group, existing, key);
    if (this.count >= this.maxEntries) this.evictOldest();
    let entries = this.groups.get(group);
    if (!entries) this.groups.set(group, (entries = new Map<K, Entry<V>>()));
    entries.set(key, { value, expiresAt: this.now() + ttlMs });
    this.count++;
  }

  /** Forgets the entry, and a load in flight for it will not be cached (it may have read the old state). */
  delete(group: G, key: K): void {
    const entries = this.groups.get(group);
    if (entries) this.remove(group, entries, key);
    this.inflight.get(group)?.delete(key);
  }

  /** Forgets every entry of the group, and no load in flight for it will be cached. */
  deleteGroup(group: G): void {
    const entries = this.groups.get(group);
    if (entries) {
      this.count -= entries.size;
      this.groups.delete(group);
    }
    this.inflight.delete(group);
  }

  clear(): void {
    this.groups.clear();
    this.inflight.clear();
    this.count = 0;
  }

  /** As getOrLoad, but a cached value comes back as it is, not in a promise (hot paths skip an await). */
  valueOrLoad(group: G, key: K, load: () => Promise<V>): V | Promise<V> {
    const cached = this.get(group, key);
    return cached !== undefined ? cached : this.getOrLoad(group, key, load);
  }

  /** Cached value, or the loader's (concurrent misses share one load). */
  async getOrLoad(group: G, key: K, load: () => Promise<V>): Promise<V> {
    const cached = this.get(group, key);
    if (cached !== undefined) return cached;
    const pending = this.inflight.get(group)?.get(key);
    if (pending) return pending;
    const current = () => this.inflight.get(group)?.get(key) === promise;
    const promise: Promise<V> = load()
      .then((value) => {
        // Invalidated (delete/deleteGroup/clear) while loading: answer this caller, but do not cache.
        if (current()) this.set(group, key, value);
        return value;
      })
      .finally(() => {
        if (!current()) return;
        const loads = this.inflight.get(group)!;
        loads.delete(key);
        if (loads.size === 0) this.inflight.delete(group);
      });
    let loads = this.inflight.get(group);
    if (!loads) this.inflight.set(group, (loads = new Map<K, Promise<V>>()));
    loads.set(key, promise);
    return promise;
  }

  get size(): number {
    return this.count;
  }

  private remove(group: G, entries: Map<K, Entry<V>>, key: K): void {
    if (!entries.delete(key)) return;
    this.count--;
    if (entries.size === 0) this.groups.delete(group);
  }

  /** The first entry of the first group: groups and entries are kept in insertion order (a set moves an entry last). */
  private evictOldest(): void {
    const first = this.groups.entries().next();
    if (first.done) return;
    const [group, entries] = first.value;
    const oldest = entries.keys().next();
    if (!oldest.done) this.remove(group, entries, oldest.value);
  }
}

const ONE_GROUP = Symbol('one group');

/**
 * A bounded map whose entries expire: the caches of credential and customer status (gateway)
 * and the like. GroupedTtlCache with a single group.
 */
export class TtlCache<K, V> {
  private readonly cache: GroupedTtlCache<symbol, K, V>;

  constructor(maxEntries: number, ttlMs: number, now: () => number = Date.now) {
    this.cache = new GroupedTtlCache(maxEntries, ttlMs, now);
  }

  get(key: K): V | undefined {
    return this.cache.get(ONE_GROUP, key);
  }

  set(key: K, value: V, ttlMs?: number): void {
    this.cache.set(ONE_GROUP, key, value, ttlMs);
  }

  /** Forgets the entry, and a load in flight for it will not be cached (it may have read the old state). */
  delete(key: K): void {
    this.cache.delete(ONE_GROUP, key);
  }

  clear(): void {
    this.cache.clear();
  }

  /** As getOrLoad, but a cached value comes back as it is, not in a promise (hot paths skip an await). */
  valueOrLoad(key: K, load: () => Promise<V>): V | Promise<V> {
    return this.cache.valueOrLoad(ONE_GROUP, key, load);
  }

  /** Cached value, or the loader's (concurrent misses share one load). */
  getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    return this.cache.getOrLoad(ONE_GROUP, key, load);
  }

  get size(): number {
    return this.cache.size;
  }
}
