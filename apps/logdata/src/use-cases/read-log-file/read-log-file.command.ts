import type { CustomerId, CustomerRef } from '@app/contracts';
import { normalizeLogFileName } from '../shared/log-file-name.js';

/** GET, HEAD and GET .../meta of /logdata/{name}, validated when built: one file of one customer. */
export class ReadLogFileCommand {
  private constructor(
    readonly customerId: CustomerId,
    /** Lower-case. */
    readonly name: string,
  ) {}

  /** Throws ServiceError 400 for a name the contract refuses. */
  static create(input: { customer: CustomerRef; name: unknown }): ReadLogFileCommand {
    return new ReadLogFileCommand(input.customer.id, normalizeLogFileName(input.name));
  }
}
