import { JobsQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';

const validQuery = contractCheck(JobsQuery, { coerce: true, where: 'query parameter' });

/** GET /admin/jobs, validated when built. */
export class ListJobsCommand {
  private constructor(readonly limit: number) {}

  static create(input: { query: unknown }): ListJobsCommand {
    return new ListJobsCommand(validQuery(input.query ?? {}).limit ?? 100);
  }
}
