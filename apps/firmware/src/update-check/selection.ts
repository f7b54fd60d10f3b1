import type { AudienceRule, FwType } from '@app/contracts';
import type { IndexedBuild } from './indexed-build.js';

/**
 * Who the update check offers a build to, by its status and release settings: the one place
 * this rule is written. The update check applies it to one device (offers, below); a build's
 * audience (GET /firmware/{id}/audience) hands it to the registry, which counts the devices it
 * selects. `tags`: the tags a device must share one of (devices_sharing_tag only).
 */
export interface BuildAudienceRule {
  readonly rule: AudienceRule;
  readonly tags: readonly string[];
}

const NOBODY: BuildAudienceRule = { rule: 'nobody', tags: [] };
const EVERY_CALLER: BuildAudienceRule = { rule: 'every_caller', tags: [] };
const KNOWN_DEVICES: BuildAudienceRule = { rule: 'known_devices', tags: [] };

export function audienceOf(build: {
  readonly status: 'active' | 'withdrawn';
  readonly generalRelease: boolean;
  readonly tagFilterDisabled: boolean;
  readonly tags: readonly string[];
}): BuildAudienceRule {
  if (build.status !== 'active') return NOBODY;
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
    case 'nobody':
      return false;
  }
}

/** The device as the update check sees it: known and active (unknown and withdrawn devices count as none). */
export interface KnownDevice {
  readonly tags: readonly string[];
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
