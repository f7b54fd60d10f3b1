import { AUDIENCE_DEFAULT_LIMIT, BuildAudienceQuery, type CustomerId, type RequestContext, requireTenant } from '@app/contracts';
import { contractCheck } from '@app/platform';

/** The contract's query schema (limit, offset, messages), coerced like the gateway does. */
const validQuery = contractCheck(BuildAudienceQuery, { coerce: true, where: 'query parameter' });

/** GET /firmware/{id}/audience, validated when built. */
export class FindBuildAudienceCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly buildId: string,
    readonly limit: number,
    readonly offset: number,
    /** Count as if the build were a general release (the console's confirmation before making it one). */
    readonly asGeneralRelease: boolean,
  ) {}

  static create(input: { ctx: RequestContext; id: unknown; query: unknown }): FindBuildAudienceCommand {
    const customerId = requireTenant(input.ctx).customer.id;
    const query = validQuery(input.query ?? {});
    return new FindBuildAudienceCommand(
      customerId,
      String(input.id ?? ''),
      query.limit ?? AUDIENCE_DEFAULT_LIMIT,
      query.offset ?? 0,
      query.as_general_release === true,
    );
  }
}
