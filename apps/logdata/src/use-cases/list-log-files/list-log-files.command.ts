import { type CustomerId, type CustomerRef, LogFileListQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';
import { normalizeLogFilePrefix } from '../shared/log-file-name.js';

/** The contract's query schema (limits, defaults, messages), coerced like the gateway does. */
const validQuery = contractCheck(LogFileListQuery, { coerce: true, where: 'query parameter' });

/** GET /logdata, validated when built. */
export class ListLogFilesCommand {
  private constructor(
    readonly customerId: CustomerId,
    /** Lower-case hex, or undefined for all. */
    readonly prefix: string | undefined,
    /** Exclusive bounds on uploaded_at. */
    readonly uploadedAfter: Date | undefined,
    readonly uploadedBefore: Date | undefined,
    readonly limit: number,
    readonly offset: number,
  ) {}

  /** Throws ServiceError 400 with the contract's message for a query it refuses. */
  static create(input: { customer: CustomerRef; query: unknown }): ListLogFilesCommand {
    const query = validQuery(input.query ?? {});
    return new ListLogFilesCommand(
      input.customer.id,
      normalizeLogFilePrefix(query.prefix),
      query.uploaded_after === undefined ? undefined : new Date(query.uploaded_after),
      query.uploaded_before === undefined ? undefined : new Date(query.uploaded_before),
      query.limit!,
      query.offset!,
    );
  }
}
