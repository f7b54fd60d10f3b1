import type { Redis } from 'ioredis';
import type { WindowCountStore } from './shared-window-counter.js';
import { WINDOW_MS } from './window-counter.js';

/**
 * The shared window counts in Redis: one key per window and client key (`<prefix>:<window
 * start>:<key>`), added to with INCRBY and expiring one window after its end, all of a batch
 * in one pipeline (one round trip per sync, whatever the number of keys).
 */
export class RedisWindowCountStore implements WindowCountStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async add(windowStart: number, increments: readonly (readonly [key: string, count: number])[]): Promise<number[]> {
    const pipeline = this.redis.pipeline();
    for (const [key, count] of increments) {
      const name = `${this.prefix}:${windowStart}:${key}`;
      pipeline.incrby(name, count);
      pipeline.pexpireat(name, windowStart + 2 * WINDOW_MS);
    }
    const results = (await pipeline.exec()) ?? [];
    return increments.map((_, i) => {
      const [err, total] = results[2 * i] ?? [new Error('no reply'), null];
      if (err) throw err;
      return Number(total);
    });
  }
}
