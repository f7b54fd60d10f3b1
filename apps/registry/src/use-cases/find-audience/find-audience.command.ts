import { AUDIENCE_MAX_LIMIT, CommonErrors, type CustomerId, type DeviceAudienceRequest, isTagName, NAME_PATTERN } from '@app/contracts';
import { requireCustomerId } from '@app/platform';
import type { AudienceQuery } from '../../repositories/device-rollout.repository.js';

const PRODUCT_NAME = new RegExp(NAME_PATTERN);
const VERSION_KEY = /^(?:[0-9a-f]{2}){1,1024}$/;
/** Tags of one build at most (the firmware app's limit, with room). */
const MAX_TAGS = 256;

/** RegistryMessages.audience (from the firmware app's audience use case), checked when built. */
export class FindAudienceCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly query: AudienceQuery,
  ) {}

  static create(request: DeviceAudienceRequest | undefined): FindAudienceCommand {
    const customerId = requireCustomerId(request?.customerId);
    const { tags, hwName, hwVersion, fwName, versionKey, limit, offset } = request ?? ({} as Partial<DeviceAudienceRequest>);
    if (tags !== null && (!Array.isArray(tags) || tags.length > MAX_TAGS || !tags.every(isTagName)))
      throw CommonErrors.invalid_request({ detail: 'tags must be null or tag names' });
    for (const name of [hwName, hwVersion, fwName]) {
      if (typeof name !== 'string' || !PRODUCT_NAME.test(name))
        throw CommonErrors.invalid_request({ detail: 'hwName, hwVersion and fwName must be product names' });
    }
    if (typeof versionKey !== 'string' || !VERSION_KEY.test(versionKey)) throw CommonErrors.invalid_request({ detail: 'versionKey must be hex' });
    if (!Number.isSafeInteger(limit) || limit! < 1 || limit! > AUDIENCE_MAX_LIMIT)
      throw CommonErrors.invalid_request({ detail: `limit must be 1 to ${AUDIENCE_MAX_LIMIT}` });
    if (!Number.isSafeInteger(offset) || offset! < 0) throw CommonErrors.invalid_request({ detail: 'offset must be a non-negative integer' });
    return new FindAudienceCommand(customerId, {
      tags: tags === null ? null : [...new Set(tags)],
      line: { hwName: hwName!, hwVersion: hwVersion!, fwName: fwName! },
      versionKey: Buffer.from(versionKey, 'hex'),
      limit: limit!,
      offset: offset!,
    });
  }
}
