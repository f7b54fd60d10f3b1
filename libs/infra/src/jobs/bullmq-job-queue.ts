import { SpanKind } from '@opentelemetry/api';
import type { Job, JobsOptions, JobType, Queue, Worker } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import { JsonLogger } from '../logging/logger.js';
import { traceHeaders, withRemoteSpan } from '../telemetry/telemetry.js';
import { DEFAULT_ATTEMPTS, DEFAULT_BACKOFF_MS } from './in-process-job-queue.js';
import {
  iso,
  JobQueue,
  type JobHandler,
  type JobOptions,
  type JobRecord,
  type JobStatus,
  payloadOf,
  type QueueDepth,
  SCHEDULED_RUNS_KEPT,
  splitTraceContext,
  withTraceContext,
} from './job-queue.js';

interface Clients {
  readonly Queue: typeof Queue;
  readonly Worker: typeof Worker;
  readonly Redis: typeof Redis;
}
let clients: Promise<Clients> | null = null;
/**
 * BullMQ and ioredis are loaded by the first BullMqJobQueue, not with this module: the
 * standalone runtime (in-process jobs) never loads them (docs/performance.md "Memory of the
 * embedded default").
 */
function loadClients(): Promise<Clients> {
  return (clients ??= Promise.all([import('bullmq'), import('ioredis')]).then(([bullmq, ioredis]) => ({
    Queue: bullmq.Queue,
    Worker: bullmq.Worker,
    Redis: ioredis.Redis,
  })));
}

/** BullMQ's job states as the list's statuses (docs/operations.md "Background jobs"). */
const STATUS_OF_STATE: ReadonlyArray<readonly [JobType, JobStatus]> = [
  ['active', 'running'],
  ['waiting', 'queued'],
  ['prioritized', 'queued'],
  ['delayed', 'queued'],
  ['waiting-children', 'queued'],
  ['completed', 'succeeded'],
  ['failed', 'failed'],
];

/** The states fds_job_queue_depth reports (finished successes are not a backlog). */
const DEPTH_STATES = ['waiting', 'delayed', 'active', 'failed'] as const;

export interface BullMqJobQueueOptions {
  /** Redis key prefix of every queue (default `fds`). Tests use a unique one per run. */
  readonly prefix?: string;
  /** Base of the exponential back-off (default 1 s). */
  readonly backoffMs?: number;
  readonly logger?: JsonLogger;
  /**
   * How long a worker's lock on a running job lasts without renewal (default BullMQ's 30 s);
   * a job whose worker died is run again by another worker at most about twice this later.
   * Tests shorten it.
   */
  readonly lockMs?: number;
}

/** Finished jobs kept for inspection (GET /admin/jobs), bounded. */
const KEEP_COMPLETED = { count: 1000, age: 24 * 3600 };
/**
 * Finished runs kept of each scheduled job: a job repeated every second would otherwise fill the
 * newest 1000 and hide the hourly ones (docs/operations.md "Background jobs").
 */
const KEEP_SCHEDULED_RUNS = { count: SCHEDULED_RUNS_KEPT, age: 24 * 3600 };
const KEEP_FAILED = { count: 5000, age: 7 * 24 * 3600 };

/**
 * BullMQ on Redis. One Queue per queue name (sharing one connection), one Worker per
 * process() call (each with its own connection, `maxRetriesPerRequest: null` as BullMQ
 * requires for blocking commands).
 *
 * De-duplication: a caller's jobId becomes BullMQ's de-duplication id, which blocks duplicates
 * exactly while the job is waiting, delayed (including back-off between tries) or active, like
 * the in-process runner; handlers see it as the job's id.
 */
export class BullMqJobQueue extends JobQueue {
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  /** The queues this process works on (process()). */
  private readonly processed = new Set<string>();
  private readonly connections: Redis[] = [];
  /** Set once the clients are loaded (`ready`). */
  private lib!: Clients;
  private queueConnection!: Redis;
  private readonly ready: Promise<void>;
  /** Workers of process() calls made before the clients were loaded. */
  private readonly starting: Promise<void>[] = [];
  private readonly prefix: string;
  private readonly backoffMs: number;
  private readonly lockMs: number | undefined;
  private readonly logger: JsonLogger;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly redisUrl: string,
    options: BullMqJobQueueOptions = {},
  ) {
    super();
    this.prefix = options.prefix ?? 'fds';
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.lockMs = options.lockMs;
    this.logger = options.logger ?? new JsonLogger('jobs');
    this.ready = loadClients().then((lib) => {
      this.lib = lib;
      // Producers fail after a few retries instead of hanging an HTTP request while Redis is down.
      this.queueConnection = this.connect({ maxRetriesPerRequest: 5 });
    });
  }

  private connect(options: RedisOptions): Redis {
    const connection = new this.lib.Redis(this.redisUrl, { ...options, connectionName: `${this.prefix}-jobs` });
    connection.on('error', (err: Error) => this.logger.write('warn', `redis: ${err.message}`, { component: 'jobs' }));
    this.connections.push(connection);
    return connection;
  }

  private async queue(name: string): Promise<Queue> {
    if (this.closing) throw new Error('job queue is closed');
    await this.ready;
    if (this.closing) throw new Error('job queue is closed');
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new this.lib.Queue(name, {
        connection: this.queueConnection,
        prefix: this.prefix,
        defaultJobOptions: {
          attempts: DEFAULT_ATTEMPTS,
          backoff: { type: 'exponential', delay: this.backoffMs },
          removeOnComplete: KEEP_COMPLETED,
          removeOnFail: KEEP_FAILED,
        },
      });
      queue.on('error', (err: Error) => this.logger.write('error', `queue ${name}: ${err.message}`));
      this.queues.set(name, queue);
    }
    return queue;
  }

  async add<T>(queue: string, name: string, data: T, options: JobOptions = {}): Promise<void> {
    const opts: JobsOptions = {};
    if (options.attempts !== undefined) opts.attempts = Math.max(1, Math.floor(options.attempts));
    if (options.delayMs !== undefined && options.delayMs > 0) opts.delay = options.delayMs;
    // BullMQ's simple de-duplication: the key blocks copies until the job succeeds or fails
    // for good, and the finished job stays listed like any other.
    if (options.jobId !== undefined) opts.deduplication = { id: options.jobId };
    const stored = withTraceContext(data, traceHeaders());
    const jobs = await this.queue(queue);
    await jobs.add(name, stored, opts);
  }

  process<T>(queue: string, handler: JobHandler<T>, options: { concurrency?: number } = {}): void {
    if (this.closing) throw new Error('job queue is closed');
    this.processed.add(queue);
    const start = this.ready.then(() => {
      // close() was called meanwhile: it waits for this, and there is nothing to stop.
      if (this.closing) return;
      this.startWorker(queue, handler, options);
    });
    this.starting.push(start);
  }

  private startWorker<T>(queue: string, handler: JobHandler<T>, options: { concurrency?: number }): void {
    const worker = new this.lib.Worker(
      queue,
      async (job: Job) => {
        const { data, trace } = splitTraceContext(job.data as T);
        const info = { id: callerIdOf(job) ?? String(job.id), name: job.name, data, attempt: job.attemptsMade + 1 };
        await withRemoteSpan(`job ${queue}/${job.name}`, trace, () => handler(info), SpanKind.CONSUMER);
      },
      {
        connection: this.connect({ maxRetriesPerRequest: null }),
        prefix: this.prefix,
        concurrency: Math.max(1, Math.floor(options.concurrency ?? 1)),
        ...(this.lockMs ? { lockDuration: this.lockMs, stalledInterval: this.lockMs } : {}),
        removeOnComplete: KEEP_COMPLETED,
        removeOnFail: KEEP_FAILED,
      },
    );
    worker.on('error', (err: Error) => this.logger.write('error', `worker ${queue}: ${err.message}`));
    worker.on('failed', (job: Job | undefined, err: Error) => {
      if (!job) return;
      const attempts = job.opts.attempts ?? 1;
      const fields = { queue, job: job.name, job_id: job.id, attempt: job.attemptsMade, attempts };
      if (job.attemptsMade < attempts) this.logger.write('warn', `job failed, will retry: ${err.message}`, fields);
      else this.logger.write('error', `job failed for good: ${err.message}`, { ...fields, stack: err.stack });
    });
    this.workers.push(worker);
  }

  async schedule<T>(queue: string, scheduleId: string, everyMs: number, name: string, data: T): Promise<void> {
    if (!(everyMs > 0)) throw new Error('everyMs must be positive');
    const jobs = await this.queue(queue);
    await jobs.upsertJobScheduler(
      scheduleId,
      { every: everyMs },
      {
        name,
        data,
        opts: {
          attempts: DEFAULT_ATTEMPTS,
          backoff: { type: 'exponential', delay: this.backoffMs },
          removeOnComplete: KEEP_SCHEDULED_RUNS,
          removeOnFail: KEEP_SCHEDULED_RUNS,
        },
      },
    );
  }

  /**
   * Every queue under this prefix (found in Redis, so the admin app sees the queues other
   * processes use), each state read newest first; merged by creation time.
   */
  async list(limit: number): Promise<JobRecord[]> {
    const take = Math.max(0, Math.floor(limit));
    if (take === 0) return [];
    const records: JobRecord[] = [];
    for (const name of await this.queueNames()) {
      const queue = await this.queue(name);
      for (const [state, status] of STATUS_OF_STATE) {
        const asc = state === 'waiting' || state === 'prioritized' || state === 'waiting-children';
        const jobs = await queue.getJobs([state], 0, take - 1, asc);
        for (const job of jobs) if (job) records.push(recordOf(name, job, status));
      }
    }
    return records.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0)).slice(0, take);
  }

  private async queueNames(): Promise<string[]> {
    await this.ready;
    const names = new Set(this.queues.keys());
    const head = `${this.prefix}:`;
    let cursor = '0';
    do {
      const [next, keys] = await this.queueConnection.scan(cursor, 'MATCH', `${head}*:meta`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) names.add(key.slice(head.length, -':meta'.length));
    } while (cursor !== '0');
    return [...names].sort();
  }

  override async depths(): Promise<QueueDepth[]> {
    if (this.closing) return [];
    const depths: QueueDepth[] = [];
    for (const name of this.processed) {
      const jobs = await this.queue(name);
      const counts = await jobs.getJobCounts(...DEPTH_STATES);
      for (const state of DEPTH_STATES) depths.push({ queue: name, state, count: counts[state] ?? 0 });
    }
    return depths;
  }

  /** Stops the workers (letting running jobs finish), then the queues and the connections. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([this.ready, ...this.starting]);
      await Promise.allSettled(this.workers.map((w) => w.close()));
      await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
      await Promise.allSettled(this.connections.map((c) => c.quit().catch(() => c.disconnect())));
    })();
    return this.closing;
  }
}

/** The caller's jobId (de-duplication key) of a job added with one, else null. */
function callerIdOf(job: Job): string | null {
  return job.opts.deduplication?.id ?? null;
}

function recordOf(queue: string, job: Job, status: JobStatus): JobRecord {
  const callerId = callerIdOf(job);
  // A scheduler's job is keyed by its schedule: `repeat:<schedule id>:<time>`.
  const scheduled = job.repeatJobKey ? `schedule:${job.repeatJobKey}` : null;
  const id = String(job.id);
  const runAt = status === 'queued' || status === 'running' ? job.timestamp + (job.delay ?? 0) : (job.processedOn ?? job.timestamp);
  return {
    id,
    kind: queue,
    payload: payloadOf(job.data),
    slot: scheduled ?? callerId ?? id,
    status,
    run_at: iso(runAt),
    attempts: Math.max(job.attemptsStarted ?? 0, job.attemptsMade),
    max_attempts: job.opts.attempts ?? 1,
    last_error: job.failedReason || null,
    created_at: iso(job.timestamp)!,
    finished_at: iso(job.finishedOn),
  };
}
