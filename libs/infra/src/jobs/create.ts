import type { ServiceConfig } from '../config/config.js';
import type { JobQueue } from './job-queue.js';

/** BullMQ when REDIS_URL is set, otherwise the process-wide in-process runner. */
export function createJobQueue(config: ServiceConfig): JobQueue {
  throw new Error('not implemented yet');
}
