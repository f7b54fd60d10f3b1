import { type CustomerId, isHwid, RegistryErrors, type RequestContext, requireTenant, UpdatePreviewQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';

/** The contract's query schema (the update check's names, type and latest, with their messages), coerced like the gateway does. */
const validQuery = contractCheck(UpdatePreviewQuery, { coerce: true, where: 'query parameter' });

/** GET /devices/{hwid}/update-preview, validated when built. */
export class PreviewUpdateCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly hwid: string,
    readonly query: Omit<UpdatePreviewQuery, 'customer'>,
  ) {}

  static create(input: { ctx: RequestContext; hwid: unknown; query: unknown }): PreviewUpdateCommand {
    const customerId = requireTenant(input.ctx).customer.id;
    if (!isHwid(input.hwid)) throw RegistryErrors.device_hwid_invalid();
    const { customer: _customer, ...query } = validQuery(input.query ?? {});
    return new PreviewUpdateCommand(customerId, input.hwid, query);
  }
}
