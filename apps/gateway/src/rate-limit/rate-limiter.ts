import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type RateLimitSpec } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows per key (a client address). Bounded: past `maxKeys` the
 * oldest window is dropped (a flood of addresses cannot grow memory). Counted per process:
 * with N gateways a client may reach N times the rate.
 */
export class FixedWindowCounter {
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

/** The endpoints' declared per-client rates (EndpointDef.rateLimit): 429 with Retry-After past them. */
@Injectable()
export class EndpointRateLimiter {
  /** One counter per bucket (a handful, fixed by the endpoint declarations): no joined key string per request. */
  private readonly counters = new Map<string, FixedWindowCounter>();

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  check(spec: RateLimitSpec, ip: string): void {
    const perMinute = this.config[spec.setting];
    let counter = this.counters.get(spec.bucket);
    if (!counter) this.counters.set(spec.bucket, (counter = new FixedWindowCounter()));
    const retryAfter = counter.hit(ip, perMinute);
    if (retryAfter !== null) {
      throw CommonErrors.rate_limited({ perMinute }, { 'Retry-After': String(retryAfter) });
    }
  }
}
