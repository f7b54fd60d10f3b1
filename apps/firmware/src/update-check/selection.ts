import type { AudienceRule, FwType } from '@app/contracts';
import { rolloutPosition, stageOfPosition } from '@app/contracts';
import type { IndexedBuild } from './indexed-build.js';

/**
 * Who the update check offers a build to, by its status, release settings and rollout: the one
 * place this rule is written. The update check applies it to one device (offers, below); a
 * build's audience (GET /firmware/{id}/audience) hands it to the registry, which counts the
 * devices it selects. `tags`: the tags a device must share one of (devices_sharing_tag, and a
 * rollout over a tagged build).
 */
export interface BuildAudienceRule {
  readonly rule: AudienceRule;
  readonly tags: readonly string[];
  /** Set for rule `rollout`: the stage gate the device must pass besides `tags`. */
  readonly rollout?: RolloutGate;
}

/**
 * A build under a staged rollout (docs/api.md "Rollouts"), as the update check sees it: the
 * devices reached so far are those whose position (a stable hash of the HW id and the rollout)
 * is below the last started stage's threshold. Only a running or paused rollout offers the build
 * (a paused one adds no stage, but keeps offering to the devices it reached); a scheduled, halted
 * or aborted one offers it to nobody new.
 */
export interface RolloutGate {
  readonly id: string;
  readonly offset: number;
  /** Thresholds of the stages started so far (non-decreasing): a device's stage is the first it is below. */
  readonly thresholds: readonly number[];
  readonly offering: boolean;
  /** Also required when not empty: the device shares one of these (the rollout's narrowing tags). */
  readonly extraTags: readonly string[];
  /** Whether the build's own rule would offer it to any known device (tag_filter_disabled or a general release), not only to those sharing `tags`. */
  readonly anyKnownDevice: boolean;
}

const NOBODY: BuildAudienceRule = { rule: 'nobody', tags: [] };
const EVERY_CALLER: BuildAudienceRule = { rule: 'every_caller', tags: [] };
const KNOWN_DEVICES: BuildAudienceRule = { rule: 'known_devices', tags: [] };

/** What the index knows of a rollout governing a build: the stage gate without the build's own rule. */
export type RolloutOfBuild = Omit<RolloutGate, 'anyKnownDevice'>;

export function audienceOf(
  build: {
    readonly status: 'active' | 'withdrawn';
    readonly generalRelease: boolean;
    readonly tagFilterDisabled: boolean;
    readonly tags: readonly string[];
  },
  rollout?: RolloutOfBuild,
): BuildAudienceRule {
  if (build.status !== 'active') return NOBODY;
  // A build under a rollout is neither a general release nor offered by its tags alone until
  // its rollout completes: the rollout's stage gate comes on top of the build's own audience.
  if (rollout) {
    const anyKnownDevice = build.generalRelease || build.tagFilterDisabled;
    return { rule: 'rollout', tags: anyKnownDevice ? [] : build.tags, rollout: { ...rollout, anyKnownDevice } };
  }
  if (build.generalRelease) return EVERY_CALLER;
  if (build.tagFilterDisabled) return KNOWN_DEVICES;
  return { rule: 'devices_sharing_tag', tags: build.tags };
}

/** Whether a build with this audience is offered to the caller: a known, active device, or null (unknown, withdrawn, or none named). */
export function offers(audience: BuildAudienceRule, device: KnownDevice | null): boolean {
  switch (audience.rule) {
    case 'every_caller':
      return true;
    case 'known_devices':
      return device !== null;
    case 'devices_sharing_tag':
      return device !== null && sharesTag(audience.tags, device.tags);
    case 'rollout':
      return device !== null && stageOf(audience, device) >= 0;
    case 'nobody':
      return false;
  }
}

/**
 * The stage of a rollout build that reached this device, or -1: the build's own rule, the
 * rollout's narrowing tags and its stage gate all pass.
 */
export function stageOf(audience: BuildAudienceRule, device: KnownDevice): number {
  const gate = audience.rollout;
  if (!gate || !gate.offering) return -1;
  if (!gate.anyKnownDevice && !sharesTag(audience.tags, device.tags)) return -1;
  if (gate.extraTags.length > 0 && !sharesTag(gate.extraTags, device.tags)) return -1;
  return stageOfPosition(rolloutPosition(device.bucket, gate.offset), gate.thresholds);
}

/** The device as the update check sees it: known and active (unknown and withdrawn devices count as none). */
export interface KnownDevice {
  readonly tags: readonly string[];
  /** Its rollout bucket (rolloutBucket(hwid)). */
  readonly bucket: number;
}

export interface Selection {
  /** The device's current version, as versionOrderKey(). */
  readonly currentKey: string;
  /** null: every type. */
  readonly types: ReadonlySet<FwType> | null;
  readonly device: KnownDevice | null;
  readonly latest: boolean;
}

/** Index of the first build newer than `key` in builds sorted by version (binary search). */
export function firstNewer(builds: readonly IndexedBuild[], key: string): number {
  let lo = 0;
  let hi = builds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (builds[mid].orderKey > key) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Whether any build newer than the current version could be offered only through a device (not general). */
export function needsDevice(builds: readonly IndexedBuild[], selection: Pick<Selection, 'currentKey' | 'types'>): boolean {
  for (let i = firstNewer(builds, selection.currentKey); i < builds.length; i++) {
    const build = builds[i];
    if (build.audience.rule !== 'every_caller' && (selection.types === null || selection.types.has(build.fwType))) return true;
  }
  return false;
}

/**
 * The update check's selection rules (docs/api.md, update check), tag_filter_disabled included, over one product line's
 * active builds sorted by version (oldest first):
 * 1. only builds newer than the current version;
 * 2. general releases always;
 * 3. with a known, active device, builds sharing a tag with it, and builds with
 *    tag_filter_disabled whatever its tags;
 * 4. an unknown or withdrawn device is no device (the caller passes null).
 * Rules 2 and 3 are each build's audience (audienceOf, kept in the index; offers).
 * Only the types asked for; oldest first, or only the newest with `latest`.
 */
export function selectBuilds(builds: readonly IndexedBuild[] | undefined, selection: Selection): IndexedBuild[] {
  if (!builds || builds.length === 0) return [];
  const chosen: IndexedBuild[] = [];
  for (let i = firstNewer(builds, selection.currentKey); i < builds.length; i++) {
    const build = builds[i];
    if (selection.types !== null && !selection.types.has(build.fwType)) continue;
    if (offers(build.audience, selection.device)) chosen.push(build);
  }
  return selection.latest && chosen.length > 1 ? [chosen[chosen.length - 1]] : chosen;
}

function sharesTag(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  for (const tag of a) if (b.includes(tag)) return true;
  return false;
}
