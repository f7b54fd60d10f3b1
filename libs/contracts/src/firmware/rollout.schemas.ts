import { Type, type Static } from '@sinclair/typebox';
import { DEVICE_STATUSES } from '../registry/registry.schemas.js';
import { CustomerQuery, Limit, NullableTimestamp, Offset, Timestamp } from '../schemas.js';
import { FwName, FwVersion, HwName, HwVersion, UpdateCheckQuery, UpdateItem } from './firmware.schemas.js';

/**
 * A rollout seen from the console (docs/api.md "Rollouts"): who the update check offers a
 * build to now (GET /firmware/{id}/audience), what it would answer one device now
 * (GET /devices/{hwid}/update-preview) and the fleet's reported versions and last-seen ages
 * (GET /fleet/summary).
 */

export const AUDIENCE_DEFAULT_LIMIT = 100;
export const AUDIENCE_MAX_LIMIT = 500;

/**
 * How the update check offers a build (the rule, decided in one place by the firmware app):
 * `nobody` (withdrawn), `every_caller` (a general release: every check of its product line,
 * device known or not), `known_devices` (tag_filter_disabled: every known, active device the
 * check names), `devices_sharing_tag` (known, active devices sharing one of its tags).
 */
export const AUDIENCE_RULES = ['nobody', 'every_caller', 'known_devices', 'devices_sharing_tag'] as const;
export type AudienceRule = (typeof AUDIENCE_RULES)[number];

export const BuildAudienceQuery = Type.Object({
  customer: CustomerQuery,
  limit: Type.Optional(Limit(AUDIENCE_MAX_LIMIT, AUDIENCE_DEFAULT_LIMIT)),
  offset: Type.Optional(Offset),
});
export type BuildAudienceQuery = Static<typeof BuildAudienceQuery>;

/** A device of an audience page, with what it last reported. */
export const AudienceDevice = Type.Object({
  hwid: Type.String(),
  last_fw_version: Type.String(),
  last_seen_at: Timestamp,
});
export type AudienceDevice = Static<typeof AudienceDevice>;

export const BuildAudience = Type.Object(
  {
    build_id: Type.String(),
    rule: Type.Union(
      AUDIENCE_RULES.map((r) => Type.Literal(r)),
      {
        description:
          'How the update check offers the build: nobody (withdrawn), every_caller (general release), known_devices (tag_filter_disabled), devices_sharing_tag (its tags).',
      },
    ),
    unknown_devices: Type.Boolean({
      description: 'Whether checks naming no device, or a device the registry does not know (or has withdrawn), are offered it too (general releases).',
    }),
    tags: Type.Array(Type.String(), { description: 'The tags that select devices (rule devices_sharing_tag); empty otherwise.' }),
    devices: Type.Integer({
      description:
        "Known, active devices in the rule whose last check named the build's product line with an older version: offered the build at their next check.",
    }),
    never_checked_in: Type.Integer({
      description:
        'Known, active devices in the rule that never checked in (no product line known): offered it once they check in on its line with an older version.',
    }),
    items: Type.Array(AudienceDevice, { description: 'A page of `devices`, by HW id in byte order.' }),
    next_offset: Type.Union([Type.Integer(), Type.Null()]),
  },
  { $id: 'BuildAudience' },
);
export type BuildAudience = Static<typeof BuildAudience>;

export const UpdatePreviewQuery = Type.Object({
  customer: CustomerQuery,
  hw_name: Type.Optional(HwName),
  hw_version: Type.Optional(HwVersion),
  fw_name: Type.Optional(FwName),
  fw_version: Type.Optional(FwVersion),
  type: UpdateCheckQuery.properties.type,
  latest: UpdateCheckQuery.properties.latest,
});
export type UpdatePreviewQuery = Static<typeof UpdatePreviewQuery>;

/** Why an update preview lists what it lists (besides the rules themselves). */
export const PREVIEW_REASONS = ['device_withdrawn', 'product_line_unknown'] as const;
export type PreviewReason = (typeof PREVIEW_REASONS)[number];

export const UpdatePreview = Type.Object(
  {
    hwid: Type.String(),
    status: Type.Union(DEVICE_STATUSES.map((s) => Type.Literal(s))),
    check: Type.Union(
      [
        Type.Object({
          hw_name: Type.String(),
          hw_version: Type.String(),
          fw_name: Type.String(),
          fw_version: Type.String(),
          type: Type.String(),
          latest: Type.Boolean(),
        }),
        Type.Null(),
      ],
      { description: "The check answered: the query's values, else what the device last reported; null when the product line or version is unknown." },
    ),
    last_seen_at: NullableTimestamp,
    reason: Type.Union([Type.Union(PREVIEW_REASONS.map((r) => Type.Literal(r))), Type.Null()], {
      description:
        'device_withdrawn: treated as an unknown device (general releases only); product_line_unknown: the device never checked in and the query does not name hw_name, hw_version, fw_name and fw_version (items empty); null otherwise.',
    }),
    message: Type.Union([Type.String(), Type.Null()], { description: 'The reason in words.' }),
    items: Type.Array(UpdateItem, { description: 'Exactly what the update check naming this device answers now.' }),
  },
  { $id: 'UpdatePreview' },
);
export type UpdatePreview = Static<typeof UpdatePreview>;
