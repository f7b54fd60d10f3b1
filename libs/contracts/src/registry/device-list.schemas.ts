import { Type, type Static } from '@sinclair/typebox';
import { FwName, FwVersion, HwName, HwVersion } from '../firmware/firmware.schemas.js';
import { CustomerQuery, Limit, Offset } from '../schemas.js';
import { LastSeenAge } from './fleet.schemas.js';
import { DEVICE_LIMITS, DeviceStatusSchema, TagName } from './registry.schemas.js';

/**
 * GET /devices: tags, HW id prefix, status and keys; and what the fleet overview counts by (the
 * reported version and product line, the age of the last check), so each of its bars is a list.
 */
export const DeviceListQuery = Type.Object({
  customer: CustomerQuery,
  tag: Type.Optional(
    Type.Array(TagName, {
      maxItems: DEVICE_LIMITS.maxQueryTags,
      description: 'Repeatable. Devices carrying any (tag_mode=any, default) or all (tag_mode=all) of these tags.',
      'x-error': `at most ${DEVICE_LIMITS.maxQueryTags} tag parameters`,
    }),
  ),
  tag_mode: Type.Optional(Type.Union([Type.Literal('any'), Type.Literal('all')], { default: 'any', 'x-error': 'tag_mode must be any or all' })),
  q: Type.Optional(
    Type.String({
      pattern: '^[!-~]{0,64}$',
      description: 'Case-sensitive HW id prefix.',
      'x-error': 'q must be at most 64 printable ASCII characters (0x21-0x7E)',
    }),
  ),
  status: Type.Optional(DeviceStatusSchema),
  has_keys: Type.Optional(Type.Boolean({ 'x-error': 'has_keys must be true or false' })),
  fw_version: Type.Optional({ ...FwVersion, description: 'Devices whose last check reported exactly this version.' }),
  hw_name: Type.Optional({ ...HwName, description: 'Devices whose last check named this hw_name.' }),
  hw_version: Type.Optional({ ...HwVersion, description: 'Devices whose last check named this hw_version.' }),
  fw_name: Type.Optional({ ...FwName, description: 'Devices whose last check named this fw_name.' }),
  last_seen: Type.Optional(LastSeenAge),
  limit: Type.Optional(Limit(DEVICE_LIMITS.listMaxLimit, DEVICE_LIMITS.listDefaultLimit)),
  offset: Type.Optional(Offset),
});
export type DeviceListQuery = Static<typeof DeviceListQuery>;
