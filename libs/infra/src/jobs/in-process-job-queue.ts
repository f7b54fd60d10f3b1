import { randomUUID } from 'node:crypto';
import { JsonLogger } from '../logging/logger.js';
import { SpanKind } from '@opentelemetry/api';
import { traceHeaders, withRemoteSpan } from '../telemetry/telemetry.js';
import {
  iso,
  JobQueue,
  type JobHandler,
  type JobInfo,
  type JobOptions,
  type JobRecord,
  type JobStatus,
  payloadOf,
  SCHEDULED_RUNS_KEPT,
  SCHEDULED_SLOT,
  splitTraceContext,
  withTraceContext,
} from './job-queue.js';

export const DEFAULT_ATTEMPTS = 5;
export const DEFAULT_BACKOFF_MS = 1000;

export interface InProcessJobQueueOptions {
  /** Base of the exponential back-off between tries: base, 2 x base, 4 x base... (default 1 s). */
  readonly backoffMs?: number;
  /** How long close() waits for running handlers (default 5 s). */
  readonly closeTimeoutMs?: number;
  readonly logger?: JsonLogger;
}

/** Finished jobs kept for GET /admin/jobs (the newest). */
const KEEP_FINISHED = 1000;

interface PendingJob {
  readonly id: string;
  readonly queue: string;
  /** The caller's jobId, which blocks duplicates while the job is waiting, delayed or active. */
  readonly dedupId: string | null;
  readonly name: string;
  readonly data: unknown;
  readonly attempts: number;
  /** Tries started so far. */
  attempt: number;
  readonly createdAt: number;
  runAt: number;
  status: JobStatus;
  lastError: string | null;
  finishedAt: number | null;
}

interface Worker {
  readonly handler: JobHandler<unknown>;
  readonly concurrency: number;
  active: number;
}

interface QueueState {
  readonly waiting: PendingJob[];
  readonly workers: Worker[];
  /** jobIds of jobs waiting, delayed or active. */
  readonly ids: Set<string>;
  pumpScheduled: boolean;
}

/**
 * The standalone job runner: the same semantics as the BullMQ adapter, in memory. Jobs do not
 * survive a restart (embedded mode accepts that; handlers are idempotent anyway).
 */
export class InProcessJobQueue extends JobQueue {
  private readonly queues = new Map<string, QueueState>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly schedules = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  /** Jobs queued or running, and the newest finished ones (for list()). */
  private readonly live = new Set<PendingJob>();
  private readonly finished: PendingJob[] = [];
  private readonly backoffMs: number;
  private readonly closeTimeoutMs: number;
  private readonly logger: JsonLogger;
  private closed = false;

  constructor(options: InProcessJobQueueOptions = {}) {
    super();
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 5000;
    this.logger = options.logger ?? new JsonLogger('jobs');
  }

  private state(queue: string): QueueState {
    let state = this.queues.get(queue);
    if (!state) {
      state = { waiting: [], workers: [], ids: new Set(), pumpScheduled: false };
      this.queues.set(queue, state);
    }
    return state;
  }

  async add<T>(queue: string, name: string, data: T, options: JobOptions = {}): Promise<void> {
    if (this.closed) throw new Error('job queue is closed');
    const state = this.state(queue);
    const dedupId = options.jobId ?? null;
    if (dedupId !== null && state.ids.has(dedupId)) return;
    const attempts = Math.max(1, Math.floor(options.attempts ?? DEFAULT_ATTEMPTS));
    // Cloned as JSON, as BullMQ stores it: handlers see the same shapes on both adapters.
    const copy: unknown = data === undefined ? undefined : JSON.parse(JSON.stringify(withTraceContext(data, traceHeaders())));
    const delay = options.delayMs ?? 0;
    const now = Date.now();
    const job: PendingJob = {
      id: randomUUID(),
      queue,
      dedupId,
      name,
      data: copy,
      attempts,
      attempt: 0,
      createdAt: now,
      runAt: now + Math.max(0, delay),
      status: 'queued',
      lastError: null,
      finishedAt: null,
    };
    if (dedupId !== null) state.ids.add(dedupId);
    this.live.add(job);
    if (delay > 0) this.later(delay, () => this.enqueue(queue, job));
    else this.enqueue(queue, job);
  }

  process<T>(queue: string, handler: JobHandler<T>, options: { concurrency?: number } = {}): void {
    if (this.closed) throw new Error('job queue is closed');
    const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
    this.state(queue).workers.push({ handler: handler as JobHandler<unknown>, concurrency, active: 0 });
    this.schedulePump(queue);
  }

  async schedule<T>(queue: string, scheduleId: string, everyMs: number, name: string, data: T): Promise<void> {
    if (this.closed) throw new Error('job queue is closed');
    if (!(everyMs > 0)) throw new Error('everyMs must be positive');
    const key = `${queue}\u0000${scheduleId}`;
    const previous = this.schedules.get(key);
    if (previous) clearInterval(previous);
    // Like BullMQ's `every` scheduler: a first run now, then one per period. The fixed jobId
    // keeps a slow run from piling up copies of itself.
    const fire = (): void => {
      this.add(queue, name, data, { jobId: `${SCHEDULED_SLOT}${scheduleId}` }).catch((err: unknown) =>
        this.logger.error(`could not add scheduled job: ${(err as Error).message}`, { queue, schedule: scheduleId }),
      );
    };
    const timer = setInterval(fire, everyMs);
    timer.unref();
    this.schedules.set(key, timer);
    if (!previous) fire();
  }

  async list(limit: number): Promise<JobRecord[]> {
    const all = [...this.live, ...this.finished].sort((a, b) => b.createdAt - a.createdAt);
    return all.slice(0, Math.max(0, limit)).map((job) => ({
      id: job.id,
      kind: job.queue,
      payload: payloadOf(job.data),
      slot: job.dedupId ?? job.id,
      status: job.status,
      run_at: iso(job.runAt),
      attempts: job.attempt,
      max_attempts: job.attempts,
      last_error: job.lastError,
      created_at: iso(job.createdAt)!,
      finished_at: iso(job.finishedAt),
    }));
  }

  private finish(job: PendingJob, status: JobStatus): void {
    job.status = status;
    job.finishedAt = Date.now();
    this.live.delete(job);
    this.finished.push(job);
    if (job.dedupId?.startsWith(SCHEDULED_SLOT)) {
      // Each scheduled job keeps its newest runs only, so a frequent one cannot crowd out the rest.
      const runs = this.finished.filter((j) => j.queue === job.queue && j.dedupId === job.dedupId);
      if (runs.length > SCHEDULED_RUNS_KEPT) this.finished.splice(this.finished.indexOf(runs[0]), 1);
    }
    if (this.finished.length > KEEP_FINISHED) this.finished.shift();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.schedules.values()) clearInterval(timer);
    this.schedules.clear();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const state of this.queues.values()) state.waiting.length = 0;
    if (this.running.size) {
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.running]),
        new Promise<void>((resolve) => {
          timeout = setTimeout(resolve, this.closeTimeoutMs);
          timeout.unref();
        }),
      ]);
      clearTimeout(timeout);
    }
  }

  /** Runs `fn` after `ms` on an unref'd timer that close() cancels. */
  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private enqueue(queue: string, job: PendingJob): void {
    if (this.closed) return;
    this.state(queue).waiting.push(job);
    this.schedulePump(queue);
  }

  /** Never runs a handler inside the caller's stack: the pump always starts from setImmediate. */
  private schedulePump(queue: string): void {
    const state = this.state(queue);
    if (state.pumpScheduled) return;
    state.pumpScheduled = true;
    setImmediate(() => {
      state.pumpScheduled = false;
      this.pump(queue, state);
    });
  }

  private pump(queue: string, state: QueueState): void {
    while (!this.closed && state.waiting.length) {
      const worker = state.workers.find((w) => w.active < w.concurrency);
      if (!worker) return; // no handler yet, or all busy: a finishing job pumps again
      const job = state.waiting.shift()!;
      worker.active++;
      const run = this.run(queue, job, worker).finally(() => {
        worker.active--;
        this.running.delete(run);
        this.schedulePump(queue);
      });
      this.running.add(run);
    }
  }

  private async run(queue: string, job: PendingJob, worker: Worker): Promise<void> {
    const state = this.state(queue);
    job.attempt++;
    job.status = 'running';
    const { data, trace } = splitTraceContext(job.data);
    const info: JobInfo<unknown> = { id: job.dedupId ?? job.id, name: job.name, data, attempt: job.attempt };
    try {
      await withRemoteSpan(`job ${queue}/${job.name}`, trace, () => worker.handler(info), SpanKind.CONSUMER);
      if (job.dedupId !== null) state.ids.delete(job.dedupId);
      this.finish(job, 'succeeded');
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      job.lastError = error.message;
      const fields = { queue, job: job.name, job_id: job.id, attempt: job.attempt, attempts: job.attempts };
      if (job.attempt < job.attempts && !this.closed) {
        const delay = this.backoffMs * 2 ** (job.attempt - 1);
        this.logger.write('warn', `job failed, retrying in ${delay} ms: ${error.message}`, fields);
        job.status = 'queued';
        job.runAt = Date.now() + delay;
        this.later(delay, () => this.enqueue(queue, job));
      } else {
        this.logger.write('error', `job failed for good: ${error.message}`, { ...fields, stack: error.stack });
        if (job.dedupId !== null) state.ids.delete(job.dedupId);
        this.finish(job, 'failed');
      }
    }
  }
}
