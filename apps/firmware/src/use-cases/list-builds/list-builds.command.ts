import { type CustomerId, type CustomerRef, FirmwareListQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';
import type { BuildFilter } from '../../repositories/build.repository.js';

/** The contract's query schema (filters, limits, defaults, messages), coerced like the gateway does. */
const validQuery = contractCheck(FirmwareListQuery, { coerce: true, where: 'query parameter' });

/** GET /firmware, validated when built. */
export class ListBuildsCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly filter: Omit<BuildFilter, 'order' | 'limit' | 'offset'>,
    readonly order: 'asc' | 'desc',
    readonly limit: number,
    readonly offset: number,
  ) {}

  /** Throws invalid_request (400) with the contract's message for a query it refuses. */
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
