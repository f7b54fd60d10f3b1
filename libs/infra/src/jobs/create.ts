import type { ServiceConfig } from '../config/config.js';
import { BullMqJobQueue } from './bullmq-job-queue.js';
import { InProcessJobQueue } from './in-process-job-queue.js';
import type { JobHandler, JobQueue } from './job-queue.js';
import { processMetrics } from '../telemetry/metrics.js';
import { ServiceMetrics } from '../telemetry/metric-names.js';

export { BullMqJobQueue, type BullMqJobQueueOptions } from './bullmq-job-queue.js';
export { InProcessJobQueue, type InProcessJobQueueOptions, DEFAULT_ATTEMPTS, DEFAULT_BACKOFF_MS } from './in-process-job-queue.js';

const instances = new Map<string, JobQueue>();

/**
 * BullMQ when REDIS_URL is set, otherwise the process-wide in-process runner. Every caller in
 * the process gets the same instance (in standalone mode the apps share the in-process runner);
 * after close() the next call makes a fresh one.
 */
export function createJobQueue(config: ServiceConfig): JobQueue {
  const key = config.redisUrl ? `redis:${config.redisUrl}` : 'in-process';
  const existing = instances.get(key);
  if (existing) return existing;
  const queue: JobQueue = config.redisUrl ? new BullMqJobQueue(config.redisUrl) : new InProcessJobQueue();
  const process = queue.process.bind(queue);
  queue.process = <T>(name: string, handler: JobHandler<T>, options?: { concurrency?: number }) => process(name, measured(name, handler), options);
  processMetrics
    .collected(ServiceMetrics.jobQueueDepth)
    .collectMany(key, async () => (await queue.depths()).map((d) => [[d.queue, d.state], d.count] as const));
  const close = queue.close.bind(queue);
  queue.close = async () => {
    if (instances.get(key) === queue) instances.delete(key);
    await close();
  };
  instances.set(key, queue);
  return queue;
}

/** A job handler that counts its runs by result and times them (fds_job_runs_total, fds_job_duration_seconds). */
function measured<T>(queue: string, handler: JobHandler<T>): JobHandler<T> {
  const runs = processMetrics.counter(ServiceMetrics.jobRuns);
  const durations = processMetrics.histogram(ServiceMetrics.jobDuration);
  return async (job) => {
    const started = performance.now();
    let result = 'failed';
    try {
      await handler(job);
      result = 'succeeded';
    } finally {
      durations.labels(queue, job.name).observe((performance.now() - started) / 1000);
      runs.labels(queue, job.name, result).inc();
    }
  };
}
