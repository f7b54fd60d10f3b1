import { BackupsQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';

const validQuery = contractCheck(BackupsQuery, { coerce: true, where: 'query parameter' });

/** GET /admin/backups, validated when built. */
export class ListBackupsCommand {
  private constructor(readonly limit: number) {}

  static create(input: { query: unknown }): ListBackupsCommand {
    return new ListBackupsCommand(validQuery(input.query ?? {}).limit ?? 50);
  }
}
