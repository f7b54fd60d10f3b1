import { Type, type Static } from '@sinclair/typebox';
import { DEVICE_STATUSES, TagName } from '../registry/registry.schemas.js';
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
export const AUDIENCE_RULES = ['nobody', 'every_caller', 'known_devices', 'devices_sharing_tag', 'rollout'] as const;
export type AudienceRule = (typeof AUDIENCE_RULES)[number];

export const BuildAudienceQuery = Type.Object({
  customer: CustomerQuery,
  as_general_release: Type.Optional(
    Type.Boolean({
      description: 'Count whom the build would reach as a general release (before PATCH general_release true), whatever it is now',
      'x-error': 'as_general_release must be true or false',
    }),
  ),
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
          "How the update check offers the build: nobody (withdrawn), every_caller (general release), known_devices (tag_filter_disabled), devices_sharing_tag (its tags), rollout (a staged rollout decides: its stages reached so far, among the devices the build's own rule selects).",
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

// ---------------------------------------------------------------------------------------------
// Staged rollouts of a build (docs/api.md "Rollouts"): stages of its audience, outcomes per
// device, halt rules, states.

/**
 * scheduled (waits for start_at), running (stage current_stage offered), paused (offered to the
 * devices already reached only), halted (a halt rule tripped: offered to nobody new), completed
 * (the build's own rule again), aborted (offered to nobody new, for good).
 */
export const ROLLOUT_STATES = ['scheduled', 'running', 'paused', 'halted', 'completed', 'aborted'] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];
/** States a build may be in only once at a time (a second rollout of the build is refused meanwhile). */
export const OPEN_ROLLOUT_STATES: readonly RolloutState[] = ['scheduled', 'running', 'paused', 'halted'];

/**
 * What became of a device a stage reached, from what the service sees (docs/api.md "Rollouts",
 * "Outcomes"): pending, updated, not_installed, rolled_back, silent, failed (a device report).
 */
export const ROLLOUT_OUTCOMES = ['pending', 'updated', 'not_installed', 'rolled_back', 'silent', 'failed'] as const;
export type RolloutOutcome = (typeof ROLLOUT_OUTCOMES)[number];
/** The outcomes a halt rule may watch. */
export const HALT_OUTCOMES = ['failed', 'rolled_back', 'silent', 'not_installed'] as const;
export type HaltOutcome = (typeof HALT_OUTCOMES)[number];

/** Steering a rollout (POST /firmware/{id}/rollout/{action}). */
export const ROLLOUT_ACTIONS = ['pause', 'resume', 'advance', 'abort'] as const;
export type RolloutAction = (typeof ROLLOUT_ACTIONS)[number];

export const ROLLOUT_LIMITS = {
  maxStages: 10,
  /** 30 days. */
  maxHoldMinutes: 43_200,
  maxMinDevices: 10_000_000,
  maxExtraTags: 20,
  maxHaltRules: 8,
  /** 7 days. */
  maxGraceMinutes: 10_080,
  /** 30 days. */
  maxSilentAfterMinutes: 43_200,
  /** start_at at most this many days ahead. */
  maxStartDays: 365,
} as const;

/** The safe defaults: a rollout without halt_rules gets these (docs/api.md "Rollouts"). */
export const DEFAULT_HALT_RULES: readonly { readonly outcome: HaltOutcome; readonly max_percent: number; readonly min_outcomes: number }[] = [
  { outcome: 'failed', max_percent: 5, min_outcomes: 20 },
  { outcome: 'rolled_back', max_percent: 5, min_outcomes: 20 },
  { outcome: 'silent', max_percent: 2, min_outcomes: 20 },
];
export const DEFAULT_GRACE_MINUTES = 60;
export const DEFAULT_SILENT_AFTER_MINUTES = 1_440;

const OutcomeLiteral = Type.Union(
  ROLLOUT_OUTCOMES.map((o) => Type.Literal(o)),
  { 'x-error': `outcome must be one of ${ROLLOUT_OUTCOMES.join(', ')}` },
);
const StateLiteral = Type.Union(
  ROLLOUT_STATES.map((s) => Type.Literal(s)),
  { 'x-error': `state must be one of ${ROLLOUT_STATES.join(', ')}` },
);

export const RolloutStageSpec = Type.Object(
  {
    percent: Type.Number({
      exclusiveMinimum: 0,
      maximum: 100,
      description: 'Share of the audience this stage reaches (cumulative), over 0 and at most 100.',
      'x-error': 'percent must be a number over 0 and at most 100',
    }),
    min_devices: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: ROLLOUT_LIMITS.maxMinDevices,
        default: 0,
        description: 'The stage reaches at least this many devices of the audience (all of them when fewer).',
        'x-error': `min_devices must be an integer from 0 to ${ROLLOUT_LIMITS.maxMinDevices}`,
      }),
    ),
    hold_minutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: ROLLOUT_LIMITS.maxHoldMinutes,
        default: 60,
        description: 'How long the stage runs healthy before the next one starts (the last stage: before the rollout completes).',
        'x-error': `hold_minutes must be an integer from 0 to ${ROLLOUT_LIMITS.maxHoldMinutes}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type RolloutStageSpec = Static<typeof RolloutStageSpec>;

export const HaltRule = Type.Object(
  {
    outcome: Type.Union(
      HALT_OUTCOMES.map((o) => Type.Literal(o)),
      { 'x-error': `a halt rule's outcome must be one of ${HALT_OUTCOMES.join(', ')}` },
    ),
    max_percent: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'The rollout halts when this outcome is more than this share of the outcomes so far…',
      'x-error': 'max_percent must be a number from 0 to 100',
    }),
    min_outcomes: Type.Integer({
      minimum: 1,
      maximum: ROLLOUT_LIMITS.maxMinDevices,
      description: '…counted once at least this many devices have an outcome other than pending.',
      'x-error': `min_outcomes must be an integer from 1 to ${ROLLOUT_LIMITS.maxMinDevices}`,
    }),
  },
  { additionalProperties: false },
);
export type HaltRule = Static<typeof HaltRule>;

export const RolloutCreate = Type.Object(
  {
    stages: Type.Array(RolloutStageSpec, {
      minItems: 1,
      maxItems: ROLLOUT_LIMITS.maxStages,
      description: 'Percents strictly increasing; the last may be 100 (then the rollout ends reaching every device of the audience).',
      'x-error': `stages must be 1 to ${ROLLOUT_LIMITS.maxStages} stages`,
    }),
    extra_tags: Type.Optional(
      Type.Array(TagName, {
        maxItems: ROLLOUT_LIMITS.maxExtraTags,
        description: "Narrows the build's audience to devices carrying one of these tags as well.",
        'x-error': `extra_tags must be at most ${ROLLOUT_LIMITS.maxExtraTags} tag names`,
      }),
    ),
    halt_rules: Type.Optional(
      Type.Array(HaltRule, {
        maxItems: ROLLOUT_LIMITS.maxHaltRules,
        description: 'Omitted: failed > 5 %, rolled_back > 5 %, silent > 2 %, each of at least 20 outcomes. [] turns halting off.',
        'x-error': `halt_rules must be at most ${ROLLOUT_LIMITS.maxHaltRules} rules`,
      }),
    ),
    complete_as_general_release: Type.Optional(
      Type.Boolean({ default: false, description: 'On completion, turn general_release on (the build is then offered to every caller of its product line).' }),
    ),
    grace_minutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: ROLLOUT_LIMITS.maxGraceMinutes,
        default: DEFAULT_GRACE_MINUTES,
        description: 'A device seen this long after its offer, still on an older version, is not_installed.',
        'x-error': `grace_minutes must be an integer from 0 to ${ROLLOUT_LIMITS.maxGraceMinutes}`,
      }),
    ),
    silent_after_minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: ROLLOUT_LIMITS.maxSilentAfterMinutes,
        default: DEFAULT_SILENT_AFTER_MINUTES,
        description: 'A device offered the build, not updated and not seen for this long is silent.',
        'x-error': `silent_after_minutes must be an integer from 1 to ${ROLLOUT_LIMITS.maxSilentAfterMinutes}`,
      }),
    ),
    start_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description: `Start later (state scheduled), at most ${ROLLOUT_LIMITS.maxStartDays} days ahead; omitted or past: start now.`,
        'x-error': 'start_at must be an RFC 3339 timestamp',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RolloutCreate = Static<typeof RolloutCreate>;

/** Outcome counts (every outcome present, 0 when none). */
export const OutcomeCounts = Type.Object(
  Object.fromEntries(ROLLOUT_OUTCOMES.map((o) => [o, Type.Integer()])) as Record<RolloutOutcome, ReturnType<typeof Type.Integer>>,
);
export type OutcomeCounts = Record<RolloutOutcome, number>;

export const RolloutStage = Type.Object({
  index: Type.Integer(),
  percent: Type.Number(),
  min_devices: Type.Integer(),
  hold_minutes: Type.Integer(),
  started_at: Type.Union([Timestamp, Type.Null()], { description: 'When the stage started; null: not reached yet.' }),
  target_devices: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Audience devices the stage reaches, counted when it started (max(percent of the audience, min_devices)); null: not reached yet.',
  }),
  offered: Type.Integer({ description: 'Devices first offered the build in this stage (they checked in).' }),
  outcomes: OutcomeCounts,
});
export type RolloutStage = Static<typeof RolloutStage>;

export const RolloutHalt = Type.Object({
  rule: HaltRule,
  count: Type.Integer({ description: 'Devices with the rule’s outcome when it tripped.' }),
  outcomes: Type.Integer({ description: 'Devices with an outcome other than pending then.' }),
  percent: Type.Number(),
  at: Timestamp,
});
export type RolloutHalt = Static<typeof RolloutHalt>;

export const Rollout = Type.Object(
  {
    id: Type.String(),
    build_id: Type.String(),
    state: StateLiteral,
    current_stage: Type.Integer({ description: '-1 before the first stage starts.' }),
    stage_started_at: NullableTimestamp,
    audience: Type.Union([Type.Integer(), Type.Null()], { description: 'Audience devices when the current stage started; null before the start.' }),
    stages: Type.Array(RolloutStage),
    outcomes: OutcomeCounts,
    extra_tags: Type.Array(Type.String()),
    halt_rules: Type.Array(HaltRule),
    halt: Type.Union([RolloutHalt, Type.Null()], { description: 'Why it halted (state halted, or resumed after a halt: the last halt).' }),
    complete_as_general_release: Type.Boolean(),
    grace_minutes: Type.Integer(),
    silent_after_minutes: Type.Integer(),
    start_at: NullableTimestamp,
    created_by: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
    revision: Type.Integer({ description: 'Grows with every transition.' }),
  },
  { $id: 'Rollout' },
);
export type Rollout = Static<typeof Rollout>;

/** A rollout in a list (GET /rollouts): the build's identity and where it stands, no counts. */
export const RolloutSummary = Type.Object(
  {
    id: Type.String(),
    build_id: Type.String(),
    hw_name: Type.String(),
    hw_version: Type.String(),
    fw_name: Type.String(),
    fw_version: Type.String(),
    state: StateLiteral,
    current_stage: Type.Integer(),
    stage_percents: Type.Array(Type.Number()),
    stage_started_at: NullableTimestamp,
    halt: Type.Union([RolloutHalt, Type.Null()]),
    updated_at: Timestamp,
  },
  { $id: 'RolloutSummary' },
);
export type RolloutSummary = Static<typeof RolloutSummary>;

export const ROLLOUT_LIST_MAX_LIMIT = 500;
export const RolloutListQuery = Type.Object({
  customer: CustomerQuery,
  state: Type.Optional(StateLiteral),
  limit: Type.Optional(Limit(ROLLOUT_LIST_MAX_LIMIT, 100)),
  offset: Type.Optional(Offset),
});
export type RolloutListQuery = Static<typeof RolloutListQuery>;
export const RolloutList = Type.Object({ items: Type.Array(RolloutSummary), next_offset: Type.Union([Type.Integer(), Type.Null()]) }, { $id: 'RolloutList' });
export type RolloutList = Static<typeof RolloutList>;

export const ROLLOUT_DEVICES_MAX_LIMIT = 500;
export const RolloutDevicesQuery = Type.Object({
  customer: CustomerQuery,
  outcome: Type.Optional(OutcomeLiteral),
  stage: Type.Optional(
    Type.Integer({ minimum: 0, maximum: ROLLOUT_LIMITS.maxStages - 1, 'x-error': `stage must be an integer from 0 to ${ROLLOUT_LIMITS.maxStages - 1}` }),
  ),
  limit: Type.Optional(Limit(ROLLOUT_DEVICES_MAX_LIMIT, 100)),
  offset: Type.Optional(Offset),
});
export type RolloutDevicesQuery = Static<typeof RolloutDevicesQuery>;

export const RolloutDevice = Type.Object({
  hwid: Type.String(),
  stage: Type.Integer({ description: 'The stage in which it was first offered the build.' }),
  outcome: OutcomeLiteral,
  offered_at: Timestamp,
  updated_at: NullableTimestamp,
  last_fw_version: Type.Union([Type.String(), Type.Null()]),
  last_seen_at: NullableTimestamp,
  reported_reason: Type.Union([Type.String(), Type.Null()], { description: "The device's own report, when it sent one." }),
});
export type RolloutDevice = Static<typeof RolloutDevice>;
export const RolloutDevicePage = Type.Object(
  { items: Type.Array(RolloutDevice), next_offset: Type.Union([Type.Integer(), Type.Null()]) },
  { $id: 'RolloutDevicePage', description: 'Devices offered the build under this rollout, by stage then HW id.' },
);
export type RolloutDevicePage = Static<typeof RolloutDevicePage>;

const PERCENT_LIST = '^(?:100|[0-9]{1,2}(?:\\.[0-9]{1,3})?)(?:,(?:100|[0-9]{1,2}(?:\\.[0-9]{1,3})?)){0,9}$';
export const RolloutPreviewQuery = Type.Object({
  customer: CustomerQuery,
  stages: Type.String({
    pattern: PERCENT_LIST,
    maxLength: 80,
    description: 'Comma-separated stage percents, e.g. 1,10,50,100.',
    'x-error': `stages must be 1 to ${ROLLOUT_LIMITS.maxStages} comma-separated percents (0 to 100)`,
  }),
  min_devices: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,8}(?:,[0-9]{1,8}){0,9}$',
      maxLength: 90,
      description: 'Comma-separated minimum devices per stage, in the order of stages.',
      'x-error': 'min_devices must be comma-separated integers, one per stage',
    }),
  ),
  extra_tags: Type.Optional(
    Type.String({ maxLength: 2000, description: 'Comma-separated tags narrowing the audience.', 'x-error': 'extra_tags must be comma-separated tag names' }),
  ),
});
export type RolloutPreviewQuery = Static<typeof RolloutPreviewQuery>;

export const RolloutPreview = Type.Object(
  {
    build_id: Type.String(),
    audience: Type.Integer({ description: "Known, active devices in the build's rule (and extra_tags) on its product line or never checked in." }),
    stages: Type.Array(Type.Object({ percent: Type.Number(), min_devices: Type.Integer(), devices: Type.Integer() })),
  },
  { $id: 'RolloutPreview' },
);
export type RolloutPreview = Static<typeof RolloutPreview>;

/** POST /admin/rollouts/evaluate: what one evaluation of every rollout did. */
export const RolloutEvaluation = Type.Object(
  {
    evaluated: Type.Integer(),
    started: Type.Integer(),
    advanced: Type.Integer(),
    halted: Type.Integer(),
    completed: Type.Integer(),
    skipped: Type.Boolean({ description: 'Another evaluator held the lock: this one did nothing.' }),
  },
  { $id: 'RolloutEvaluation' },
);
export type RolloutEvaluation = Static<typeof RolloutEvaluation>;

// A device's history: a row per reported version change (GET /devices/{hwid}/history).
export const DEVICE_HISTORY_MAX_LIMIT = 500;
export const DeviceHistoryQuery = Type.Object({
  customer: CustomerQuery,
  limit: Type.Optional(Limit(DEVICE_HISTORY_MAX_LIMIT, 100)),
  offset: Type.Optional(Offset),
});
export type DeviceHistoryQuery = Static<typeof DeviceHistoryQuery>;
export const DeviceHistoryEntry = Type.Object({
  fw_version: Type.String(),
  hw_name: Type.Union([Type.String(), Type.Null()]),
  hw_version: Type.Union([Type.String(), Type.Null()]),
  fw_name: Type.Union([Type.String(), Type.Null()]),
  seen_at: Timestamp,
});
export type DeviceHistoryEntry = Static<typeof DeviceHistoryEntry>;
export const DeviceHistory = Type.Object(
  {
    items: Type.Array(DeviceHistoryEntry, { description: 'Newest first: the first check that reported each version.' }),
    next_offset: Type.Union([Type.Integer(), Type.Null()]),
  },
  { $id: 'DeviceHistory' },
);
export type DeviceHistory = Static<typeof DeviceHistory>;
