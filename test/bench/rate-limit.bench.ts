// npm run bench:rate-limit — what sharing the per-address limit across gateways costs a gateway
// (docs/performance.md "The shared rate limit"), in one run: CPU per request of the counter a
// lone gateway uses (the baseline) against the shared one (its own window plus the shared
// count), and the CPU of one sync of BENCH_ADDRESSES (default 5,000) addresses with Redis
// (REDIS_URL, default redis://127.0.0.1:6379; its keys removed afterwards). Rounds
// interleaved, medians printed: CPU time, not wall time, so other load on the machine weighs less.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { JsonLogger } from '../../libs/infra/src/logging/logger.js';
import { RedisWindowCountStore } from '../../apps/gateway/src/rate-limit/redis-window-count-store.js';
import { SharedWindowCounter } from '../../apps/gateway/src/rate-limit/shared-window-counter.js';
import { FixedWindowCounter, type WindowCounter } from '../../apps/gateway/src/rate-limit/window-counter.js';

const ADDRESSES = Number(process.env.BENCH_ADDRESSES ?? 5_000);
const HITS = Number(process.env.BENCH_HITS ?? 1_000_000);
const ROUNDS = 9;
const prefix = `fds-bench-rate-${randomBytes(4).toString('hex')}`;
const addresses = Array.from({ length: ADDRESSES }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);

/** CPU time of this process in microseconds. */
function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** Nanoseconds of CPU per hit over `HITS` hits spread over the addresses. */
function perHit(counter: WindowCounter): number {
  const started = cpuMicros();
  for (let i = 0; i < HITS; i++) counter.hit(addresses[i % ADDRESSES], 1e9);
  return ((cpuMicros() - started) * 1000) / HITS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const store = new RedisWindowCountStore(redis, prefix);
const logger = new JsonLogger('bench');
const alone: number[] = [];
const shared: number[] = [];
const syncs: number[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    alone.push(perHit(new FixedWindowCounter()));
    const counter = new SharedWindowCounter(store, logger, { syncMs: 0 });
    shared.push(perHit(counter));
    const started = cpuMicros();
    await counter.sync();
    syncs.push((cpuMicros() - started) / 1000);
  }
} finally {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
}
const sync = median(syncs);
console.log(`bench:rate-limit  ${HITS} hits over ${ADDRESSES} addresses per round, ${ROUNDS} rounds, medians of CPU time`);
console.log(`  per hit, one gateway's own count (baseline): ${median(alone).toFixed(0)} ns`);
console.log(`  per hit, own window + shared count         : ${median(shared).toFixed(0)} ns   (+${(median(shared) - median(alone)).toFixed(0)} ns)`);
console.log(
  `  one sync of ${ADDRESSES} addresses with Redis     : ${sync.toFixed(1)} ms   (${((sync * 1000) / ADDRESSES).toFixed(2)} µs per address and second it was seen in)`,
);
