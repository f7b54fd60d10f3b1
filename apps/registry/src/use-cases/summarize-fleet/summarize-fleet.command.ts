import { type CustomerId, FLEET_SUMMARY_DEFAULT_VERSIONS, FleetSummaryQuery, type RequestContext, requireTenant } from '@app/contracts';
import { contractCheck } from '@app/platform';
import type { FleetFilter } from '../../repositories/device-rollout.repository.js';

/** The contract's query schema (filters, limits, messages), coerced like the gateway does. */
const validQuery = contractCheck(FleetSummaryQuery, { coerce: true, where: 'query parameter' });

/** GET /fleet/summary, validated when built; ages are measured from the moment it is built. */
export class SummarizeFleetCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly filter: FleetFilter,
  ) {}

  static create(input: { ctx: RequestContext; query: unknown }, now = new Date()): SummarizeFleetCommand {
    const customerId = requireTenant(input.ctx).customer.id;
    const query = validQuery(input.query ?? {});
    return new SummarizeFleetCommand(customerId, {
      tag: query.tag,
      hwName: query.hw_name,
      hwVersion: query.hw_version,
      fwName: query.fw_name,
      versions: query.versions ?? FLEET_SUMMARY_DEFAULT_VERSIONS,
      at: now,
    });
  }
}
