import { afterAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { JsonLogger } from '@app/infra';
import { RedisWindowCountStore } from '../../apps/gateway/src/rate-limit/redis-window-count-store.js';
import { SharedWindowCounter, type WindowCountStore } from '../../apps/gateway/src/rate-limit/shared-window-counter.js';
import { WINDOW_MS } from '../../apps/gateway/src/rate-limit/window-counter.js';

/**
 * The per-address limit shared by gateways (docs/operations.md "Rate limits across
 * gateways"): two counters standing for two gateway processes on one real Redis, synced by
 * hand (syncMs 0) so each step is deterministic.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `fds-test-rate-${randomBytes(4).toString('hex')}`;
const redis = new Redis(REDIS_URL);
const logger = new JsonLogger('gateway');
/** Within one window, far from its end, whatever the clock says. */
let now = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 1_000;
const clock = () => now;

function gateway(store: WindowCountStore = new RedisWindowCountStore(redis, PREFIX)): SharedWindowCounter {
  return new SharedWindowCounter(store, logger, { syncMs: 0, now: clock });
}

/** Hits `times` times; the answers that refused. */
function hits(counter: SharedWindowCounter, key: string, times: number, perMinute: number): number {
  let refused = 0;
  for (let i = 0; i < times; i++) if (counter.hit(key, perMinute) !== null) refused++;
  return refused;
}

afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

describe('SharedWindowCounter on Redis (two gateways)', () => {
  it('holds the limit across gateways once they have synced: what one admitted counts at the other', async () => {
    const [a, b] = [gateway(), gateway()];
    expect(hits(a, '198.51.100.1', 6, 10)).toBe(0);
    await a.sync();
    await b.sync();
    // b has not learnt a's 6 yet (it had nothing to send): it decides on its own hits.
    expect(hits(b, '198.51.100.1', 3, 10)).toBe(0);
    await b.sync(); // sends its 3, learns the total 9
    expect(hits(b, '198.51.100.1', 1, 10)).toBe(0); // 10
    expect(b.hit('198.51.100.1', 10)).toBe(59); // 11: refused until the window ends
    await b.sync();
    await a.sync(); // nothing pending at a: it learns the total only with its next hit's sync
    a.hit('198.51.100.1', 10); // a's estimate 7: admitted (the bounded overshoot)
    await a.sync(); // total 12
    expect(a.hit('198.51.100.1', 10)).not.toBeNull();
    expect(Number(await redis.hget(`${PREFIX}:${now - (now % WINDOW_MS)}`, '198.51.100.1'))).toBe(12);
  });

  it('counts each address apart and starts again in the next window', async () => {
    const [a, b] = [gateway(), gateway()];
    expect(hits(a, '192.0.2.7', 5, 5)).toBe(0);
    expect(hits(b, '192.0.2.8', 5, 5)).toBe(0);
    await Promise.all([a.sync(), b.sync()]);
    expect(b.hit('192.0.2.8', 5)).not.toBeNull();
    expect(hits(b, '192.0.2.7', 1, 5)).toBe(0);
    await b.sync();
    expect(b.hit('192.0.2.7', 5)).not.toBeNull(); // 5 from a + 2 from b
    now += WINDOW_MS;
    expect(a.hit('192.0.2.7', 5)).toBeNull();
    expect(b.hit('192.0.2.7', 5)).toBeNull();
  });

  it("refuses as a lone gateway would across a clock minute's end: its own window starts with the address's first request", async () => {
    now += WINDOW_MS - (now % WINDOW_MS) - 1_000; // one second before the clock minute ends
    const a = gateway();
    expect(hits(a, '192.0.2.99', 10, 10)).toBe(0);
    now += 2_000; // a new shared window, same own window
    expect(a.hit('192.0.2.99', 10)).toBe(58);
    now += 58_000; // the own window over too
    expect(a.hit('192.0.2.99', 10)).toBeNull();
  });

  it('sends one batch per sync, however many hits and addresses it counted', async () => {
    const calls: number[] = [];
    const store = new RedisWindowCountStore(redis, PREFIX);
    const counting: WindowCountStore = { add: (window, increments) => (calls.push(increments.length), store.add(window, increments)) };
    const a = gateway(counting);
    hits(a, '203.0.113.1', 50, 1000);
    hits(a, '203.0.113.2', 20, 1000);
    await a.sync();
    await a.sync(); // nothing new: no call
    expect(calls).toEqual([2]);
    expect(Number(await redis.hget(`${PREFIX}:${now - (now % WINDOW_MS)}`, '203.0.113.1'))).toBe(50);
  });

  it('keeps counting locally while the store fails, and sends the kept hits once it answers', async () => {
    let down = true;
    const store = new RedisWindowCountStore(redis, PREFIX);
    const flaky: WindowCountStore = {
      add: (window, increments) => (down ? Promise.reject(new Error('Connection is closed.')) : store.add(window, increments)),
    };
    const a = gateway(flaky);
    expect(hits(a, '203.0.113.9', 4, 4)).toBe(0);
    await a.sync();
    expect(a.hit('203.0.113.9', 4)).not.toBeNull(); // the local count still holds the rate
    down = false;
    await a.sync();
    expect(Number(await redis.hget(`${PREFIX}:${now - (now % WINDOW_MS)}`, '203.0.113.9'))).toBe(5);
  });
});
