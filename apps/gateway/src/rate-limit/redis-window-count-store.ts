import type { Redis } from 'ioredis';
import type { WindowCountStore } from './shared-window-counter.js';
import { WINDOW_MS } from './window-counter.js';

/**
 * Adds a batch to a window's hash (one field per client key) and returns the totals in order;
 * the hash expires one window after its end. One call per sync, whatever the batch size: the
 * per-command cost of the client (building and parsing a command per key) stays out of the
 * gateway's event loop.
 */
const ADD_BATCH = `
local totals = {}
for i = 2, #ARGV, 2 do
  totals[#totals + 1] = redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return totals`;

/** The shared window counts in Redis: a hash per window (`<prefix>:<window start ms>`), field per client key. */
export class RedisWindowCountStore implements WindowCountStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async add(windowStart: number, increments: readonly (readonly [key: string, count: number])[]): Promise<number[]> {
    const args: (string | number)[] = [windowStart + 2 * WINDOW_MS];
    for (const [key, count] of increments) args.push(key, count);
    const totals = (await this.redis.eval(ADD_BATCH, 1, `${this.prefix}:${windowStart}`, ...args)) as number[];
    return totals.map(Number);
  }
}
