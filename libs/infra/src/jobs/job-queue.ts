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
 * Background work. Adapters: BullMQ on Redis (distributed) and an in-process runner
 * (standalone) with the same retry semantics. Delivery is at-least-once: handlers must be
 * idempotent.
 */
export abstract class JobQueue {
  abstract add<T>(queue: string, name: string, data: T, options?: JobOptions): Promise<void>;

  /** Registers the handler of a queue in this process (the worker app does this). */
  abstract process<T>(queue: string, handler: JobHandler<T>, options?: { concurrency?: number }): void;

  /** Repeats a job every `everyMs` (one schedule per id across replicas). */
  abstract schedule<T>(queue: string, scheduleId: string, everyMs: number, name: string, data: T): Promise<void>;

  abstract close(): Promise<void>;
}
