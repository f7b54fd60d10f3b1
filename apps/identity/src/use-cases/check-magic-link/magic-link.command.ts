import { isUuid, type MagicLinkQuery as MagicLinkQueryType, MagicLinkQuery, type RequestContext } from '@app/contracts';
import { contractCheck } from '@app/platform';

const checkQuery = contractCheck(MagicLinkQuery, { where: 'query parameter' });

/** GET and POST /auth/magic, validated when built with the contract's MagicLinkQuery (`c` a UUID, `t` the link token). */
export class MagicLinkCommand {
  private constructor(
    /** Null when `c` passes the contract's uuid format yet is no plain UUID (`urn:uuid:`…): no challenge has it. */
    readonly challengeId: string | null,
    readonly token: string,
    /** The link as asked (the confirmation page repeats it). */
    readonly query: MagicLinkQueryType,
    readonly ip: string,
    readonly baseUrl: string,
    readonly origin: string | undefined,
    readonly fetchSite: string | undefined,
  ) {}

  static create(input: { ctx: RequestContext; query: unknown; headers?: Readonly<Record<string, string | undefined>> }): MagicLinkCommand {
    const query = checkQuery(input.query);
    return new MagicLinkCommand(
      isUuid(query.c) ? query.c.toLowerCase() : null,
      query.t,
      query,
      input.ctx.ip,
      input.ctx.baseUrl,
      input.headers?.origin,
      input.headers?.['sec-fetch-site'],
    );
  }
}
