import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { CommonErrors, type RateLimitSpec } from '@app/contracts';
import { JsonLogger, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { RedisWindowCountStore } from './redis-window-count-store.js';
import { SharedWindowCounter } from './shared-window-counter.js';
import { FixedWindowCounter, type WindowCounter } from './window-counter.js';

/** How often a gateway adds its counts to the shared ones and learns the others' (docs/operations.md "Rate limits across gateways"). */
export const RATE_SYNC_MS = 1_000;

/**
 * The endpoints' declared per-client rates (EndpointDef.rateLimit): 429 with Retry-After past
 * them. With Redis configured (the distributed runtime) the counts are shared by every gateway
 * (SharedWindowCounter), otherwise counted in the process.
 */
@Injectable()
export class EndpointRateLimiter implements OnModuleInit, OnModuleDestroy {
  /** One counter per bucket (a handful, fixed by the endpoint declarations): no joined key string per request. */
  private readonly counters = new Map<string, WindowCounter>();
  private redis: Redis | null = null;
  /** ioredis's client class, loaded at start only with Redis configured (the standalone runtime never loads it). */
  private Redis: typeof Redis | null = null;
  private readonly shared: SharedWindowCounter[] = [];

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  async onModuleInit(): Promise<void> {
    if (this.config.redisUrl) this.Redis = (await import('ioredis')).Redis;
  }

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
      this.redis = new this.Redis!(this.config.redisUrl, { connectionName: 'gateway-rate-limits', enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      this.redis.on('error', () => undefined); // the counter logs a failed sync, once
    }
    const counter = new SharedWindowCounter(new RedisWindowCountStore(this.redis, `fds:rate:${bucket}`), new JsonLogger('gateway'), { syncMs: RATE_SYNC_MS });
    this.shared.push(counter);
    return counter;
  }
}
