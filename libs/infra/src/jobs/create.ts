import type { ServiceConfig } from '../config/config.js';
import { BullMqJobQueue } from './bullmq-job-queue.js';
import { InProcessJobQueue } from './in-process-job-queue.js';
import type { JobQueue } from './job-queue.js';

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
  const close = queue.close.bind(queue);
  queue.close = async () => {
    if (instances.get(key) === queue) instances.delete(key);
    await close();
  };
  instances.set(key, queue);
  return queue;
}
