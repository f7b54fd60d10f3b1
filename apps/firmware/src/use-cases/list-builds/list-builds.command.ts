import { type CustomerId, type CustomerRef, FirmwareListQuery, type FwType } from '@app/contracts';
import { contractCheck } from '@app/platform';
import type { BuildStatus } from '../../entities/build.entity.js';

/** The contract's query schema (filters, limits, defaults, messages), coerced like the gateway does. */
const validQuery = contractCheck(FirmwareListQuery, { coerce: true, where: 'query parameter' });

/** GET /firmware, validated when built. */
export class ListBuildsCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly filter: {
      readonly fwName?: string;
      readonly hwName?: string;
      readonly hwVersion?: string;
      readonly fwType?: FwType;
      readonly tag?: string;
      readonly status?: BuildStatus;
      readonly general?: boolean;
    },
    readonly order: 'asc' | 'desc',
    readonly limit: number,
    readonly offset: number,
  ) {}

  /** Throws ServiceError 400 with the contract's message for a query it refuses. */
  static create(input: { customer: CustomerRef; query: unknown }): ListBuildsCommand {
    const query = validQuery(input.query ?? {});
    return new ListBuildsCommand(
      input.customer.id,
      {
        fwName: query.fw_name,
        hwName: query.hw_name,
        hwVersion: query.hw_version,
        fwType: query.fw_type,
        tag: query.tag,
        status: query.status,
        general: query.general,
      },
      query.order === 'asc' ? 'asc' : 'desc',
      query.limit!,
      query.offset!,
    );
  }
}
