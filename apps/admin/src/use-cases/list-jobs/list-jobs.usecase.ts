import { Inject, Injectable } from '@nestjs/common';
import type { JobView } from '@app/contracts';
import { JobQueue } from '@app/infra';
import type { ListJobsCommand } from './list-jobs.command.js';

/** Payload members never shown in the list: a mail's subject and body hold login codes and magic links. */
const REDACTED_PAYLOAD_KEYS: ReadonlySet<string> = new Set(['subject', 'text', 'html']);
export const REDACTED = '[redacted]';

/**
 * GET /admin/jobs: the admin app reads the job queue of its runtime directly (the in-process
 * runner every app of the standalone process shares, or BullMQ's Redis, where every process's
 * queues are visible), so no other app is asked.
 */
@Injectable()
export class ListJobs {
  constructor(@Inject(JobQueue) private readonly jobs: JobQueue) {}

  async execute(command: ListJobsCommand): Promise<{ items: JobView[] }> {
    const items = await this.jobs.list(command.limit);
    return { items: items.map((job) => ({ ...job, payload: redact(job.payload) })) };
  }
}

function redact(payload: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) out[key] = REDACTED_PAYLOAD_KEYS.has(key) ? REDACTED : value;
  return out;
}
