import { Type, type Static } from '@sinclair/typebox';
import { Limit, NullableTimestamp, Timestamp } from '../schemas.js';

/** The statuses of a background job (docs/operations.md "Background jobs"). */
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;

/** A background job, as both job runtimes report it. */
export const JobSchema = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: 'The queue, naming the kind of work: email, security-detectors, staging-cleanup...' }),
    payload: Type.Object({}, { additionalProperties: true, description: 'The job data (mail subjects and bodies redacted)' }),
    slot: Type.String({
      description: 'The de-duplication key (schedule:<name> for scheduled runs): at most one job of a slot is queued or running; otherwise the job id',
    }),
    status: Type.Union(JOB_STATUSES.map((s) => Type.Literal(s))),
    run_at: NullableTimestamp,
    attempts: Type.Integer({ minimum: 0, description: 'Tries started so far' }),
    max_attempts: Type.Integer({ minimum: 1 }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    finished_at: NullableTimestamp,
  },
  { $id: 'Job' },
);
export type JobView = Static<typeof JobSchema>;

export const JobsQuery = Type.Object({ limit: Limit(1000, 100) });
export type JobsQuery = Static<typeof JobsQuery>;
