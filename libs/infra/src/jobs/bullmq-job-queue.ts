import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { JsonLogger } from '../logging/logger.js';
import { DEFAULT_ATTEMPTS, DEFAULT_BACKOFF_MS } from './in-process-job-queue.js';
import { JobQueue, type JobHandler, type JobOptions } from './job-queue.js';

export interface BullMqJobQueueOptions {
  /** Redis key prefix of every queue (default `fds`). Tests use a unique one per run. */
  readonly prefix?: string;
  /** Base of the exponential back-off (default 1 s). */
  readonly backoffMs?: number;
  readonly logger?: JsonLogger;
}

/** Finished jobs without a caller's jobId kept for inspection (bounded). */
const KEEP_COMPLETED = { count: 1000, age: 24 * 3600 };
const KEEP_FAILED = { count: 5000, age: 7 * 24 * 3600 };

/**
 * BullMQ on Redis. One Queue per queue name (sharing one connection), one Worker per
 * process() call (each with its own connection, `maxRetriesPerRequest: null` as BullMQ
 * requires for blocking commands).
 *
 * De-duplication: a caller's jobId becomes the BullMQ job id, and such jobs are removed as
 * soon as they finish, so the id blocks duplicates exactly while the job is waiting, delayed
 * (including back-off between tries) or active, like the in-process runner.
 */
export class BullMqJobQueue extends JobQueue {
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  private readonly connections: Redis[] = [];
  private readonly queueConnection: Redis;
  private readonly prefix: string;
  private readonly backoffMs: number;
  private readonly logger: JsonLogger;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly redisUrl: string,
    options: BullMqJobQueueOptions = {},
  ) {
    super();
    this.prefix = options.prefix ?? 'fds';
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.logger = options.logger ?? new JsonLogger('jobs');
    // Producers fail after a few retries instead of hanging an HTTP request while Redis is down.
    this.queueConnection = this.connect({ maxRetriesPerRequest: 5 });
  }

  private connect(options: RedisOptions): Redis {
    const connection = new Redis(this.redisUrl, { ...options, connectionName: `${this.prefix}-jobs` });
    connection.on('error', (err: Error) => this.logger.write('warn', `redis: ${err.message}`, { component: 'jobs' }));
    this.connections.push(connection);
    return connection;
  }

  private queue(name: string): Queue {
    if (this.closing) throw new Error('job queue is closed');
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
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
    if (options.jobId !== undefined) {
      opts.jobId = encodeJobId(options.jobId);
      opts.removeOnComplete = true;
      opts.removeOnFail = true;
    }
    await this.queue(queue).add(name, data, opts);
  }

  process<T>(queue: string, handler: JobHandler<T>, options: { concurrency?: number } = {}): void {
    if (this.closing) throw new Error('job queue is closed');
    const worker = new Worker(
      queue,
      async (job: Job) => {
        await handler({
          id: job.opts.jobId && job.id === job.opts.jobId ? decodeJobId(job.id) : String(job.id),
          name: job.name,
          data: job.data as T,
          attempt: job.attemptsMade + 1,
        });
      },
      {
        connection: this.connect({ maxRetriesPerRequest: null }),
        prefix: this.prefix,
        concurrency: Math.max(1, Math.floor(options.concurrency ?? 1)),
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
    await this.queue(queue).upsertJobScheduler(
      scheduleId,
      { every: everyMs },
      {
        name,
        data,
        opts: {
          attempts: DEFAULT_ATTEMPTS,
          backoff: { type: 'exponential', delay: this.backoffMs },
          removeOnComplete: KEEP_COMPLETED,
          removeOnFail: KEEP_FAILED,
        },
      },
    );
  }

  /** Stops the workers (letting running jobs finish), then the queues and the connections. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled(this.workers.map((w) => w.close()));
      await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
      await Promise.allSettled(this.connections.map((c) => c.quit().catch(() => c.disconnect())));
    })();
    return this.closing;
  }
}

/**
 * BullMQ refuses custom ids that look like integers or contain `:`. This mapping is
 * injective: `%`, `:` and `#` are percent-encoded and an all-digit result gets a `#`.
 */
export function encodeJobId(id: string): string {
  const encoded = id.replace(/[%:#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return /^\d+$/.test(encoded) ? `#${encoded}` : encoded;
}

export function decodeJobId(id: string): string {
  return decodeURIComponent(id.startsWith('#') ? id.slice(1) : id);
}
