import { SecurityEventsQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';
import type { SecurityEventFilter } from '../../repositories/security-event.repository.js';

/** The contract's query schema (filters, limits, messages), coerced like the gateway does. */
const validQuery = contractCheck(SecurityEventsQuery, { coerce: true, where: 'query parameter' });

/** GET /admin/security/events, validated when built. */
export class ListSecurityEventsCommand {
  private constructor(readonly filter: SecurityEventFilter) {}

  static create(input: { query: unknown }): ListSecurityEventsCommand {
    const query = validQuery(input.query ?? {});
    return new ListSecurityEventsCommand({ kind: query.kind, severity: query.severity, unacked: query.unacked, limit: query.limit ?? 100 });
  }
}
