import { Type, type Static } from '@sinclair/typebox';
import { FwName, HwName, HwVersion } from '../firmware/firmware.schemas.js';
import { CustomerQuery, Timestamp } from '../schemas.js';
import { TagName } from './registry.schemas.js';

/** Versions listed by GET /fleet/summary (the rest are summed in other_versions). */
export const FLEET_SUMMARY_DEFAULT_VERSIONS = 10;
export const FLEET_SUMMARY_MAX_VERSIONS = 100;

/** Last-seen age buckets of GET /fleet/summary: upper bounds in seconds, the last one open. */
export const LAST_SEEN_BUCKETS = [
  { name: 'under_1h', below: 3_600 },
  { name: 'under_24h', below: 86_400 },
  { name: 'under_7d', below: 7 * 86_400 },
  { name: 'under_30d', below: 30 * 86_400 },
] as const;

/** A last-seen age bucket of GET /fleet/summary, as a filter of GET /devices (same bounds). */
export type LastSeenAge = 'never' | (typeof LAST_SEEN_BUCKETS)[number]['name'] | 'older';
const LAST_SEEN_AGES: readonly LastSeenAge[] = ['never', ...LAST_SEEN_BUCKETS.map((bucket) => bucket.name), 'older'];
export const LastSeenAge = Type.Union(
  LAST_SEEN_AGES.map((name) => Type.Literal(name)),
  {
    description: 'The age of the last check: never, under_1h, under_24h, under_7d, under_30d or older (each from the previous bound, inclusive, to its own)',
    'x-error': 'last_seen must be never, under_1h, under_24h, under_7d, under_30d or older',
  },
);

export const FleetSummaryQuery = Type.Object({
  customer: CustomerQuery,
  tag: Type.Optional(TagName),
  hw_name: Type.Optional(HwName),
  hw_version: Type.Optional(HwVersion),
  fw_name: Type.Optional(FwName),
  versions: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: FLEET_SUMMARY_MAX_VERSIONS,
      default: FLEET_SUMMARY_DEFAULT_VERSIONS,
      description: 'How many reported versions to list, most devices first.',
      'x-error': `versions must be an integer from 1 to ${FLEET_SUMMARY_MAX_VERSIONS}`,
    }),
  ),
});
export type FleetSummaryQuery = Static<typeof FleetSummaryQuery>;

const Count = Type.Integer({ minimum: 0 });

export const FleetSummary = Type.Object(
  {
    at: Timestamp,
    active: Type.Integer({ description: 'Active devices matching the filters; every count below is of these.' }),
    withdrawn: Type.Integer({ description: 'Withdrawn devices matching the filters (not counted elsewhere).' }),
    versions: Type.Array(Type.Object({ fw_version: Type.String(), devices: Count }), {
      description: 'Last reported firmware versions, most devices first (then by version text).',
    }),
    other_versions: Type.Integer({ description: 'Devices reporting a version not listed in versions.' }),
    never_reported: Type.Integer({ description: 'Devices that never checked in (always 0 with a product line filter).' }),
    last_seen: Type.Object(
      {
        never: Count,
        under_1h: Count,
        under_24h: Count,
        under_7d: Count,
        under_30d: Count,
        older: Count,
      },
      { description: 'Devices by the age of their last check at `at`: each bucket from the previous bound (inclusive) to its own (exclusive).' },
    ),
  },
  { $id: 'FleetSummary' },
);
export type FleetSummary = Static<typeof FleetSummary>;
