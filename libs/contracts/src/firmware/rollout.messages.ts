import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineEvent, defineMessage } from '../messages/message.js';
import type { DeviceParams } from '../registry/registry.schemas.js';
import type { NoParams } from '../schemas.js';
import type { FirmwareCustomerQuery, FirmwareIdParams } from './firmware.schemas.js';
import type {
  DeviceHistory,
  DeviceHistoryQuery,
  Rollout,
  RolloutCreate,
  RolloutDevicePage,
  RolloutDevicesQuery,
  RolloutEvaluation,
  RolloutHalt,
  RolloutList,
  RolloutListQuery,
  RolloutOutcome,
  RolloutPreview,
  RolloutPreviewQuery,
} from './rollout.schemas.js';

/** The rollout endpoints answered by the firmware app (rollout.endpoints.ts). */
export const RolloutMessages = {
  create: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, RolloutCreate>, Rollout>('firmware.rollout.create', { timeoutMs: 60_000 }),
  get: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>, Rollout>('firmware.rollout.get', { timeoutMs: 30_000 }),
  pause: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>, Rollout>('firmware.rollout.pause', { timeoutMs: 30_000 }),
  resume: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>, Rollout>('firmware.rollout.resume', { timeoutMs: 30_000 }),
  advance: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>, Rollout>('firmware.rollout.advance', { timeoutMs: 60_000 }),
  abort: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>, Rollout>('firmware.rollout.abort', { timeoutMs: 30_000 }),
  devices: defineMessage<EndpointCall<FirmwareIdParams, RolloutDevicesQuery, undefined>, RolloutDevicePage>('firmware.rollout.devices', { timeoutMs: 30_000 }),
  preview: defineMessage<EndpointCall<FirmwareIdParams, RolloutPreviewQuery, undefined>, RolloutPreview>('firmware.rollout.preview', { timeoutMs: 60_000 }),
  list: defineMessage<EndpointCall<NoParams, RolloutListQuery, undefined>, RolloutList>('firmware.rollouts.list'),
  /** POST /admin/rollouts/evaluate: one evaluation of every rollout now (what the minute job does). */
  evaluate: defineMessage<EndpointCall<NoParams, NoParams, undefined>, RolloutEvaluation>('firmware.rollouts.evaluate', { timeoutMs: 120_000 }),
} as const;

/** A rollout halted by a rule (docs/api.md "Rollouts", "Halt rules"): the figures, and whom it was mailed to. */
export interface RolloutHalted {
  readonly customerId: string;
  readonly domain: string | null;
  readonly rolloutId: string;
  readonly buildId: string;
  /** The build's product line and version, as the mail names it. */
  readonly build: { readonly hwName: string; readonly hwVersion: string; readonly fwName: string; readonly fwVersion: string };
  /** The stage it halted in (0-based) and how many stages the plan has. */
  readonly stage: number;
  readonly stages: number;
  readonly halt: RolloutHalt;
  readonly revision: number;
  readonly mailedTo: number;
}

export const RolloutEvents = {
  /** Published by the firmware app when a halt rule stops a rollout (after the transition and its audit entry). */
  halted: defineEvent<RolloutHalted>('firmware.rollout.halted', 'queue'),
} as const;

/**
 * Which devices a rollout's audience holds, as the registry selects them: known, active devices
 * on the build's product line (or that never checked in), sharing one of `tags` when set
 * (the build's rule; null: every device) and one of `extraTags` when set.
 */
export interface RolloutAudienceSpec {
  readonly customerId: string;
  readonly tags: readonly string[] | null;
  readonly extraTags: readonly string[] | null;
  readonly hwName: string;
  readonly hwVersion: string;
  readonly fwName: string;
}

/** The smallest position cut-offs reaching each target (devices) of the audience, for a rollout offset. */
export interface RolloutThresholdsRequest extends RolloutAudienceSpec {
  readonly offset: number;
  /** Devices each stage must reach, ascending. */
  readonly targets: readonly number[];
  /**
   * Stages whose targets follow from the audience counted in the same pass (stageTarget): their
   * thresholds come after those of `targets`. One pass instead of a count, then a cut.
   */
  readonly stages?: readonly { readonly percent: number; readonly minDevices: number }[];
}
export interface RolloutThresholds {
  readonly audience: number;
  /** Per target: the cut-off (0..10000) and the audience devices below it. */
  readonly thresholds: readonly number[];
  readonly devices: readonly number[];
}

/** The outcome rules' parameters (docs/api.md "Rollouts", "Outcomes"). */
export interface RolloutOutcomeRules {
  readonly customerId: string;
  readonly rolloutId: string;
  /** The build's version order key, hex. */
  readonly versionKey: string;
  readonly graceMinutes: number;
  readonly silentAfterMinutes: number;
}
export interface RolloutProgress {
  /** Per stage index (as recorded at offer time): devices offered and their outcome counts. */
  readonly stages: readonly { readonly stage: number; readonly offered: number; readonly outcomes: Readonly<Record<RolloutOutcome, number>> }[];
}
export interface RolloutDevicesRequest extends RolloutOutcomeRules {
  readonly outcome: RolloutOutcome | null;
  readonly stage: number | null;
  readonly limit: number;
  readonly offset: number;
}

/** A device's own report of an install (device reports), recorded against its offers of the build. */
export interface RolloutReport {
  readonly customerId: string;
  readonly hwid: string;
  readonly buildId: string;
  readonly outcome: 'installed' | 'failed' | 'rolled_back';
  readonly reason: string | null;
  readonly at: string;
}

/** What the firmware app's rollouts ask the registry (answered from indexes over the offers and devices). */
export const RegistryRolloutMessages = {
  thresholds: defineMessage<RolloutThresholdsRequest, RolloutThresholds>('registry.rollouts.thresholds', { timeoutMs: 60_000 }),
  progress: defineMessage<RolloutOutcomeRules, RolloutProgress>('registry.rollouts.progress', { timeoutMs: 60_000 }),
  devices: defineMessage<RolloutDevicesRequest, { readonly items: readonly RolloutDeviceRow[]; readonly total: number }>('registry.rollouts.devices', {
    timeoutMs: 30_000,
  }),
  /** GET /devices/{hwid}/history. */
  history: defineMessage<EndpointCall<DeviceParams, DeviceHistoryQuery, undefined>, DeviceHistory>('registry.devices.history'),
} as const;

export interface RolloutDeviceRow {
  readonly hwid: string;
  readonly stage: number;
  readonly outcome: RolloutOutcome;
  readonly offeredAt: string;
  readonly updatedAt: string | null;
  readonly lastFwVersion: string | null;
  readonly lastSeenAt: string | null;
  readonly reportedReason: string | null;
}
