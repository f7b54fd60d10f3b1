import { IpBlocksQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';

const validQuery = contractCheck(IpBlocksQuery, { coerce: true, where: 'query parameter' });

/** GET /admin/ip-blocks, validated when built: the blocks in force, or expired ones too (`all`). */
export class ListIpBlocksCommand {
  private constructor(readonly all: boolean) {}

  static create(input: { query: unknown }): ListIpBlocksCommand {
    return new ListIpBlocksCommand(validQuery(input.query ?? {}).all === true);
  }
}
