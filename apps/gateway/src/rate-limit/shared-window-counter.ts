import type { JsonLogger } from '@app/infra';
import { FixedWindowCounter, WINDOW_MS, type WindowCounter } from './window-counter.js';

/** Where the gateways add up their counts: each window's total per key, across processes. */
export interface WindowCountStore {
  /** Adds each key's increment to its total in the window starting at `windowStart`; the totals after, in order. */
  add(windowStart: number, increments: readonly (readonly [key: string, count: number])[]): Promise<number[]>;
}

interface KeyCount {
  /** The total of the window across every gateway, as the store last answered (own synced hits included). */
  shared: number;
  /** Own hits sent to the store, not answered yet. */
  inFlight: number;
  /** Own hits not sent yet. */
  pending: number;
}

/**
 * Per-key counts of one-minute windows shared by every gateway through a store (Redis),
 * without waiting on it per request. The shared windows are clock minutes (the same on every
 * gateway): a hit is counted locally and decided on the last total the store answered plus this
 * process's hits since; every `syncMs` one batch (one store call for every key hit since) adds
 * the local hits to the shared totals and brings the new totals back. Beside it the process
 * keeps its own window per key, starting with the key's first request (FixedWindowCounter, what
 * a lone gateway enforces): a key is refused when either count passes the rate, so a gateway
 * refuses at least what it would refuse alone, and the shared count adds what the others saw.
 *
 * The price is a bounded overshoot (docs/operations.md "Rate limits across gateways"): what
 * the other gateways admit for a key in the time one sync takes to reach everyone (at most
 * `syncMs` plus a store round trip). A store that fails leaves the counts local (each gateway
 * then enforces the rate on its own share) until it answers again: the hits are kept and sent
 * with the next batch.
 */
export class SharedWindowCounter implements WindowCounter {
  private window = 0;
  private counts = new Map<string, KeyCount>();
  /** Keys with pending hits, so a sync visits only those. */
  private dirty = new Set<string>();
  private syncing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  /** This process's own window per key (refusals unchanged by sharing, whatever the clock minute). */
  private readonly local: FixedWindowCounter;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(
    private readonly store: WindowCountStore,
    private readonly logger: JsonLogger,
    options: { syncMs: number; maxKeys?: number; now?: () => number },
  ) {
    this.maxKeys = options.maxKeys ?? 200_000;
    this.now = options.now ?? Date.now;
    this.local = new FixedWindowCounter(this.maxKeys, this.now);
    if (options.syncMs > 0) {
      this.timer = setInterval(() => void this.sync(), options.syncMs);
      this.timer.unref();
    }
  }

  hit(key: string, perMinute: number): number | null {
    const own = this.local.hit(key, perMinute);
    const shared = this.sharedHit(key, perMinute);
    return own === null ? shared : Math.max(own, shared ?? 0);
  }

  private sharedHit(key: string, perMinute: number): number | null {
    const now = this.now();
    const window = now - (now % WINDOW_MS);
    if (window !== this.window) this.startWindow(window);
    let count = this.counts.get(key);
    if (!count) {
      if (this.counts.size >= this.maxKeys) this.dropOldest();
      count = { shared: 0, inFlight: 0, pending: 0 };
      this.counts.set(key, count);
    }
    if (count.pending++ === 0) this.dirty.add(key);
    if (count.shared + count.inFlight + count.pending <= perMinute) return null;
    return Math.max(1, Math.ceil((window + WINDOW_MS - now) / 1000));
  }

  /** Sends the hits counted since the last sync and takes the totals back (one store call; none when nothing is pending). */
  sync(): Promise<void> {
    this.syncing ??= this.sendPending().finally(() => (this.syncing = null));
    return this.syncing;
  }

  close(): void {
    clearInterval(this.timer);
  }

  get size(): number {
    return this.counts.size;
  }

  private startWindow(window: number): void {
    // Counts of the previous window are of no use to the next: the store keys them by window.
    this.window = window;
    this.counts = new Map();
    this.dirty = new Set();
  }

  private dropOldest(): void {
    const oldest = this.counts.keys().next();
    if (oldest.done) return;
    this.counts.delete(oldest.value);
    this.dirty.delete(oldest.value);
  }

  private async sendPending(): Promise<void> {
    if (this.dirty.size === 0) return;
    const window = this.window;
    const counts = this.counts;
    const batch: [string, number][] = [];
    const sent: KeyCount[] = [];
    for (const key of this.dirty) {
      const count = counts.get(key)!;
      batch.push([key, count.pending]);
      sent.push(count);
      count.inFlight += count.pending;
      count.pending = 0;
    }
    this.dirty = new Set();
    let totals: number[];
    try {
      totals = await this.store.add(window, batch);
    } catch (err) {
      for (let i = 0; i < batch.length; i++) this.restore(counts, batch[i][0], sent[i], batch[i][1]);
      if (!this.failing) this.logger.warn('rate-limit counts not shared, counting locally', { error: (err as Error).message });
      this.failing = true;
      return;
    }
    if (this.failing) this.logger.info('rate-limit counts shared again');
    this.failing = false;
    for (let i = 0; i < batch.length; i++) {
      const count = sent[i];
      count.inFlight -= batch[i][1];
      // The store's total holds every gateway's synced hits, ours of this batch included.
      if (counts === this.counts) count.shared = Math.max(count.shared, totals[i]);
    }
  }

  /** Hits whose batch failed become pending again (sent with the next one), unless their window is over. */
  private restore(counts: Map<string, KeyCount>, key: string, count: KeyCount, hits: number): void {
    count.inFlight -= hits;
    if (counts !== this.counts || counts.get(key) !== count) return;
    count.pending += hits;
    this.dirty.add(key);
  }
}
