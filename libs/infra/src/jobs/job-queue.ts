export interface JobOptions {
  /** De-duplicates: a job with the same id that is waiting or active is not added again. */
  readonly jobId?: string;
  readonly delayMs?: number;
  /** Total tries including the first; default 5 with exponential back-off. */
  readonly attempts?: number;
}

export interface JobInfo<T> {
  readonly id: string;
  readonly name: string;
  readonly data: T;
  /** 1 on the first try. */
  readonly attempt: number;
}

export type JobHandler<T> = (job: JobInfo<T>) => Promise<void>;

/**
 * Where a job stands (docs/operations.md "Background jobs"): `queued` (waiting for a worker,
 * for its delay or for the back-off before its next try), `running`, `succeeded`, `failed`
 * (every try failed).
 */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** One job as GET /admin/jobs shows it. Times are RFC 3339; null where not (yet) known. */
export interface JobRecord {
  readonly id: string;
  /** The queue, which names the kind of work (one handler per queue): `email`, `security-detectors`, `staging-cleanup`. */
  readonly kind: string;
  readonly payload: Record<string, unknown>;
  /**
   * The de-duplication key (`login:…`, `schedule:staging-cleanup`): at most one job of a slot
   * is queued or running at a time. A job added without one has a slot of its own, its id.
   */
  readonly slot: string;
  readonly status: JobStatus;
  readonly run_at: string | null;
  /** Tries started so far. */
  readonly attempts: number;
  readonly max_attempts: number;
  readonly last_error: string | null;
  readonly created_at: string;
  readonly finished_at: string | null;
}

/** The slot of a scheduled job's runs: `schedule:<schedule id>`. */
export const SCHEDULED_SLOT = 'schedule:';
/** Finished runs kept of each scheduled job (the newest), in both runtimes. */
export const SCHEDULED_RUNS_KEPT = 100;

/** The data key that carries the W3C trace context of whoever queued a job (stripped before handlers see the data). */
export const JOB_TRACE_KEY = '_trace';

/**
 * Background work. Adapters: BullMQ on Redis (distributed) and an in-process runner
 * (standalone) with the same retry semantics. Delivery is at-least-once: handlers must be
 * idempotent. A job carries the trace context of the code that queued it, and its handler
 * runs in a span continuing that trace.
 */
export abstract class JobQueue {
  abstract add<T>(queue: string, name: string, data: T, options?: JobOptions): Promise<void>;

  /** Registers the handler of a queue in this process (the worker app does this). */
  abstract process<T>(queue: string, handler: JobHandler<T>, options?: { concurrency?: number }): void;

  /** Repeats a job every `everyMs` (one schedule per id across replicas). */
  abstract schedule<T>(queue: string, scheduleId: string, everyMs: number, name: string, data: T): Promise<void>;

  /** The newest jobs of every queue (queued, running and recently finished), newest first. */
  abstract list(limit: number): Promise<JobRecord[]>;

  abstract close(): Promise<void>;

  /** Jobs per state of the queues this process works on (fds_job_queue_depth); none where not known. */
  depths(): Promise<QueueDepth[]> {
    return Promise.resolve([]);
  }
}

/** How many jobs of a queue are in a state (`waiting`, `delayed`, `active`, `failed`). */
export interface QueueDepth {
  readonly queue: string;
  readonly state: string;
  readonly count: number;
}

/** A job's data as stored, with the trace context of the caller when tracing is on. */
export function withTraceContext<T>(data: T, trace: Record<string, string>): T {
  if (!trace.traceparent || !data || typeof data !== 'object' || Array.isArray(data)) return data;
  return { ...data, [JOB_TRACE_KEY]: trace };
}

/** Splits stored data into the handler's data and the trace context it carried. */
export function splitTraceContext<T>(stored: T): { data: T; trace: Record<string, string> | undefined } {
  if (!stored || typeof stored !== 'object' || !(JOB_TRACE_KEY in stored)) return { data: stored, trace: undefined };
  const { [JOB_TRACE_KEY]: trace, ...data } = stored as Record<string, unknown>;
  return { data: data as T, trace: trace as Record<string, string> };
}

/** A job's data as the list shows it: an object, without the trace context. */
export function payloadOf(stored: unknown): Record<string, unknown> {
  const { data } = splitTraceContext(stored);
  if (data && typeof data === 'object' && !Array.isArray(data)) return data as Record<string, unknown>;
  return data === undefined ? {} : { value: data };
}

export const iso = (ms: number | null | undefined): string | null => (ms ? new Date(ms).toISOString() : null);
