/** The window of every per-address rate: one minute. */
export const WINDOW_MS = 60_000;

/** What a counter answers for one request: null within the rate, else the seconds until its window ends. */
export interface WindowCounter {
  hit(key: string, perMinute: number): number | null;
}

/**
 * Fixed one-minute windows per key (a client address), each starting with the key's first
 * request, counted in this process alone (the standalone runtime; in the distributed one,
 * each gateway's own share beside the shared count). Bounded: past `maxKeys` the oldest window
 * is dropped (a flood of addresses cannot grow memory).
 */
export class FixedWindowCounter implements WindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly maxKeys = 200_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request; null when it is within `perMinute`, else the seconds until the window ends. */
  hit(key: string, perMinute: number): number | null {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= WINDOW_MS) {
      if (window) this.windows.delete(key);
      else if (this.windows.size >= this.maxKeys) {
        const oldest = this.windows.keys().next();
        if (!oldest.done) this.windows.delete(oldest.value);
      }
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    if (window.count <= perMinute) return null;
    return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
  }

  get size(): number {
    return this.windows.size;
  }
}
