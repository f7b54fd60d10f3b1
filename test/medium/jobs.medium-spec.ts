import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { BullMqJobQueue, createJobQueue, InProcessJobQueue, loadConfig, SCHEDULED_RUNS_KEPT, type JobInfo, type JobQueue, type JobRecord } from '@app/infra';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `fds-test-${randomBytes(4).toString('hex')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs = 10_000, refresh?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await refresh?.(), !condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

let queueCounter = 0;
const uniqueQueue = (label: string) => `${label}-${++queueCounter}`;

afterAll(async () => {
  // Remove every key this run created in the shared Redis.
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
});

describe.each([
  ['in-process', () => new InProcessJobQueue()],
  ['bullmq', () => new BullMqJobQueue(REDIS_URL, { prefix: PREFIX })],
] as const)('JobQueue (%s)', (_kind, make) => {
  let jobs: JobQueue;
  beforeEach(() => {
    jobs = make();
  });
  afterEach(async () => {
    await jobs.close();
  });

  it('runs a job with its name and data', async () => {
    const queue = uniqueQueue('run');
    const seen: JobInfo<{ n: number; at: string }>[] = [];
    jobs.process<{ n: number; at: string }>(queue, async (job) => {
      seen.push(job);
    });
    await jobs.add(queue, 'hello', { n: 1, at: 'x' });
    await until(() => seen.length === 1);
    expect(seen[0]).toMatchObject({ name: 'hello', data: { n: 1, at: 'x' }, attempt: 1 });
    expect(typeof seen[0].id).toBe('string');
  });

  it('retries a failing job with back-off, then succeeds', async () => {
    const queue = uniqueQueue('retry');
    const attempts: Array<{ attempt: number; at: number }> = [];
    let done = false;
    jobs.process(queue, async (job) => {
      attempts.push({ attempt: job.attempt, at: Date.now() });
      if (job.attempt === 1) throw new Error('transient failure');
      done = true;
    });
    await jobs.add(queue, 'flaky', {});
    await until(() => done);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
    // Exponential back-off starts at 1 s.
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(900);
  });

  it('gives up after `attempts` tries', async () => {
    const queue = uniqueQueue('give-up');
    let tries = 0;
    jobs.process(queue, async () => {
      tries++;
      throw new Error('permanent failure');
    });
    await jobs.add(queue, 'doomed', {}, { attempts: 2 });
    await until(() => tries === 2);
    await sleep(2500); // a third try would have come after 2 s
    expect(tries).toBe(2);
  });

  it('de-duplicates by jobId while the job waits or runs, not after', async () => {
    const queue = uniqueQueue('dedup');
    const runs: Array<{ id: string; data: unknown }> = [];
    // Added before any handler exists: the jobs wait for it.
    await jobs.add(queue, 'once', { v: 1 }, { jobId: 'mail:login:42' });
    await jobs.add(queue, 'once', { v: 2 }, { jobId: 'mail:login:42' });
    await jobs.add(queue, 'once', { v: 3 }, { jobId: '42' });
    await jobs.add(queue, 'once', { v: 4 }, { jobId: '42' });
    jobs.process(queue, async (job) => {
      runs.push({ id: job.id, data: job.data });
    });
    await until(() => runs.length >= 2);
    await sleep(300);
    expect(runs).toHaveLength(2);
    expect(runs).toEqual(
      expect.arrayContaining([
        { id: 'mail:login:42', data: { v: 1 } },
        { id: '42', data: { v: 3 } },
      ]),
    );
    // Finished: the same id may run again.
    await jobs.add(queue, 'once', { v: 5 }, { jobId: '42' });
    await until(() => runs.length === 3);
    expect(runs[2]).toEqual({ id: '42', data: { v: 5 } });
  });

  it('honours delayMs', async () => {
    const queue = uniqueQueue('delay');
    let ranAt = 0;
    jobs.process(queue, async () => {
      ranAt = Date.now();
    });
    const addedAt = Date.now();
    await jobs.add(queue, 'later', {}, { delayMs: 700 });
    // Not before its delay, measured from before the add (on a loaded machine the add itself may take hundreds of ms).
    await until(() => ranAt > 0);
    expect(ranAt - addedAt).toBeGreaterThanOrEqual(650);
  });

  it('honours concurrency', async () => {
    const queue = uniqueQueue('concurrency');
    let active = 0;
    let maxActive = 0;
    let finished = 0;
    jobs.process(
      queue,
      async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await sleep(150);
        active--;
        finished++;
      },
      { concurrency: 2 },
    );
    for (let i = 0; i < 6; i++) await jobs.add(queue, 'work', { i });
    await until(() => finished === 6);
    expect(maxActive).toBe(2);
  });

  it('repeats scheduled jobs, one schedule per id', async () => {
    const queue = uniqueQueue('schedule');
    const runs: unknown[] = [];
    jobs.process(queue, async (job) => {
      runs.push(job.data);
    });
    await jobs.schedule(queue, 'tick', 300, 'tick', { v: 1 });
    await jobs.schedule(queue, 'tick', 300, 'tick', { v: 1 }); // upsert, not a second schedule
    await until(() => runs.length >= 3, 5000);
    const count = runs.length;
    await sleep(250);
    // One schedule fires at most once per 300 ms.
    expect(runs.length - count).toBeLessThanOrEqual(1);
    expect(runs[0]).toEqual({ v: 1 });
  });
});

describe.each([
  ['in-process', () => new InProcessJobQueue({ backoffMs: 20 })],
  ['bullmq', () => new BullMqJobQueue(REDIS_URL, { prefix: PREFIX, backoffMs: 20 })],
] as const)('JobQueue.list (%s)', (_kind, make) => {
  let jobs: JobQueue;
  beforeEach(() => {
    jobs = make();
  });
  afterEach(async () => {
    await jobs.close();
  });

  const mine = async (queue: string) => (await jobs.list(1000)).filter((j) => j.kind === queue);

  it('lists queued, succeeded and failed jobs with every field, newest first', async () => {
    const queue = uniqueQueue('listed');
    await jobs.add(queue, 'work', { n: 1 }, { jobId: 'slot-a' });
    await sleep(5);
    await jobs.add(queue, 'work', { n: 2, fail: true }, { attempts: 2 });
    await sleep(5);
    await jobs.add(queue, 'work', { n: 3 }, { delayMs: 60_000 });
    const queued = await mine(queue);
    expect(queued.map((j) => j.payload)).toEqual([{ n: 3 }, { n: 2, fail: true }, { n: 1 }]);
    expect(queued.every((j) => j.status === 'queued' && j.attempts === 0 && j.finished_at === null)).toBe(true);
    expect(queued[2]).toMatchObject({ slot: 'slot-a', kind: queue, max_attempts: 5, last_error: null });
    expect(queued[1].slot).toBe(queued[1].id);
    expect(Date.parse(queued[0].run_at!) - Date.parse(queued[0].created_at)).toBeGreaterThanOrEqual(59_000);

    jobs.process<{ fail?: boolean }>(queue, async (job) => {
      if (job.data.fail) throw new Error('broken on purpose');
    });
    let finished: JobRecord[] = [];
    await until(
      () => finished.length === 1,
      10_000,
      async () => {
        finished = (await mine(queue)).filter((j) => j.status === 'failed');
      },
    );
    expect(finished[0]).toMatchObject({ payload: { n: 2, fail: true }, attempts: 2, max_attempts: 2, last_error: 'broken on purpose' });
    expect(finished[0].finished_at).not.toBeNull();
    const all = await mine(queue);
    expect(all.find((j) => j.slot === 'slot-a')).toMatchObject({ status: 'succeeded', attempts: 1, payload: { n: 1 } });
    expect(new Set(all.map((j) => j.id)).size).toBe(all.length);
    expect(all.find((j) => j.payload.n === 3)?.status).toBe('queued');
    expect(await jobs.list(1)).toHaveLength(1);
  });

  it('lists scheduled runs under the slot schedule:<id>', async () => {
    const queue = uniqueQueue('scheduled');
    jobs.process(queue, async () => undefined);
    await jobs.schedule(queue, queue, 60_000, queue, {});
    let runs: JobRecord[] = [];
    await until(
      () => runs.some((j) => j.status === 'succeeded'),
      10_000,
      async () => {
        runs = await mine(queue);
      },
    );
    expect(runs.find((j) => j.status === 'succeeded')).toMatchObject({ kind: queue, slot: `schedule:${queue}`, attempts: 1 });
  });

  it('keeps the newest SCHEDULED_RUNS_KEPT runs of a scheduled job, so a frequent one leaves the others listed', async () => {
    const hourly = uniqueQueue('hourly');
    const frequent = uniqueQueue('frequent');
    jobs.process(hourly, async () => undefined);
    let ran = 0;
    jobs.process(frequent, async () => {
      ran++;
    });
    await jobs.schedule(hourly, hourly, 3_600_000, hourly, {});
    await jobs.schedule(frequent, frequent, 5, frequent, {});
    await until(() => ran > SCHEDULED_RUNS_KEPT + 20, 60_000);
    let runs: JobRecord[] = [];
    await until(
      () => runs.length > 0 && runs.length <= SCHEDULED_RUNS_KEPT,
      10_000,
      async () => {
        runs = (await mine(frequent)).filter((j) => j.status === 'succeeded');
      },
    );
    expect(runs.length).toBeLessThanOrEqual(SCHEDULED_RUNS_KEPT);
    expect((await mine(hourly)).some((j) => j.status === 'succeeded')).toBe(true);
  });
});

describe('BullMqJobQueue: a worker killed midway', () => {
  it('runs the job again on another worker (at-least-once), and lists the second try', async () => {
    const queue = uniqueQueue('killed');
    const lockMs = 500;
    const producer = new BullMqJobQueue(REDIS_URL, { prefix: PREFIX });
    await producer.add(queue, 'work', { n: 1 }, { jobId: 'killed-1' });
    // A worker takes the job and dies before finishing it: it took the job's lock and never
    // renews it (BullMQ's manual fetch: no lock renewal, no completion).
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const crashed = new Worker(queue, null, { connection, prefix: PREFIX, lockDuration: lockMs });
    const taken = await crashed.getNextJob('crashed-worker');
    expect(taken?.data).toMatchObject({ n: 1 });
    await crashed.close();
    await connection.quit();

    const survivor = new BullMqJobQueue(REDIS_URL, { prefix: PREFIX, lockMs });
    const runs: Array<{ id: string; data: unknown }> = [];
    survivor.process(queue, async (job) => {
      runs.push({ id: job.id, data: job.data });
    });
    try {
      await until(() => runs.length === 1, 15_000);
      expect(runs[0]).toEqual({ id: 'killed-1', data: { n: 1 } });
      let listed: JobRecord | undefined;
      await until(
        () => listed?.status === 'succeeded',
        5_000,
        async () => {
          listed = (await survivor.list(1000)).find((j) => j.kind === queue);
        },
      );
      expect(listed).toMatchObject({ slot: 'killed-1', attempts: 2, last_error: null });
    } finally {
      await survivor.close();
      await producer.close();
    }
  });
});

describe('InProcessJobQueue specifics', () => {
  it('never runs a handler inside the caller’s call stack', async () => {
    const jobs = new InProcessJobQueue();
    let ran = false;
    jobs.process('q', async () => {
      ran = true;
    });
    const adding = jobs.add('q', 'x', {});
    expect(ran).toBe(false);
    await adding;
    expect(ran).toBe(false);
    await until(() => ran);
    await jobs.close();
  });

  it('hands handlers a JSON copy of the data, as Redis would', async () => {
    const jobs = new InProcessJobQueue();
    const data = { when: new Date(0), list: [1] };
    let seen: unknown;
    jobs.process('q', async (job) => {
      seen = job.data;
    });
    await jobs.add('q', 'x', data);
    data.list.push(2);
    await until(() => seen !== undefined);
    expect(seen).toEqual({ when: '1970-01-01T00:00:00.000Z', list: [1] });
    await jobs.close();
  });

  it('close() waits for running jobs briefly and stops timers', async () => {
    const jobs = new InProcessJobQueue({ closeTimeoutMs: 1000 });
    let started = false;
    let finished = false;
    let later = false;
    jobs.process('q', async (job) => {
      if (job.name === 'later') later = true;
      else {
        started = true;
        await sleep(200);
        finished = true;
      }
    });
    await jobs.add('q', 'slow', {});
    await jobs.add('q', 'later', {}, { delayMs: 300 });
    await until(() => started);
    await jobs.close();
    expect(finished).toBe(true);
    await sleep(400);
    expect(later).toBe(false);
    await expect(jobs.add('q', 'x', {})).rejects.toThrow(/closed/);
  });
});

describe('createJobQueue', () => {
  it('shares the in-process runner without REDIS_URL, and renews it after close', async () => {
    const a = createJobQueue(loadConfig({}));
    expect(a).toBeInstanceOf(InProcessJobQueue);
    expect(createJobQueue(loadConfig({}))).toBe(a);
    await a.close();
    const b = createJobQueue(loadConfig({}));
    expect(b).not.toBe(a);
    await b.close();
  });

  it('uses BullMQ with REDIS_URL', async () => {
    const jobs = createJobQueue(loadConfig({ REDIS_URL }));
    expect(jobs).toBeInstanceOf(BullMqJobQueue);
    await jobs.close();
  });
});
