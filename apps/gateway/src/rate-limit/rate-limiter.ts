import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { CommonErrors, type RateLimitSpec } from '@app/contracts';
import { JsonLogger, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { RedisWindowCountStore } from './redis-window-count-store.js';
import { SharedWindowCounter, WINDOW_MS, type WindowCounter } from './shared-window-counter.js';

/** How often a gateway adds its counts to the shared ones and learns the others' (docs/operations.md "Rate limits across gateways"). */
export const RATE_SYNC_MS = 1_000;

/**
 * Fixed one-minute windows per key (a client address), counted in this process alone (the
 * standalone runtime: one process). Bounded: past `maxKeys` the oldest window is dropped (a
 * flood of addresses cannot grow memory).
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

/**
 * The endpoints' declared per-client rates (EndpointDef.rateLimit): 429 with Retry-After past
 * them. With Redis configured (the distributed runtime) the counts are shared by every gateway
 * (SharedWindowCounter), otherwise counted in the process.
 */
@Injectable()
export class EndpointRateLimiter implements OnModuleDestroy {
  /** One counter per bucket (a handful, fixed by the endpoint declarations): no joined key string per request. */
  private readonly counters = new Map<string, WindowCounter>();
  private redis: Redis | null = null;
  private readonly shared: SharedWindowCounter[] = [];

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  check(spec: RateLimitSpec, ip: string): void {
    const perMinute = this.config[spec.setting];
    let counter = this.counters.get(spec.bucket);
    if (!counter) this.counters.set(spec.bucket, (counter = this.counterFor(spec.bucket)));
    const retryAfter = counter.hit(ip, perMinute);
    if (retryAfter !== null) {
      throw CommonErrors.rate_limited({ perMinute }, { 'Retry-After': String(retryAfter) });
    }
  }

  async onModuleDestroy(): Promise<void> {
    for (const counter of this.shared) counter.close();
    await this.redis?.quit().catch(() => undefined);
  }

  private counterFor(bucket: string): WindowCounter {
    if (!this.config.redisUrl) return new FixedWindowCounter();
    if (!this.redis) {
      // No offline queue: while Redis is away a sync fails at once and the counts stay local.
      this.redis = new Redis(this.config.redisUrl, { connectionName: 'gateway-rate-limits', enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      this.redis.on('error', () => undefined); // the counter logs a failed sync, once
    }
    const counter = new SharedWindowCounter(new RedisWindowCountStore(this.redis, `fds:rate:${bucket}`), new JsonLogger('gateway'), { syncMs: RATE_SYNC_MS });
    this.shared.push(counter);
    return counter;
  }
}
