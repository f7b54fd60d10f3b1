import { describe, expect, it } from '@jest/globals';
import { type BuildEntityOptions, makeBuildEntity } from '../../test/factories.js';
import { versionOrderKey } from '../domain/version-order.js';
import { ifNoneMatchMatches, listEtag, typesOf } from './update-check.service.js';
import { indexed, type IndexedBuild } from './indexed-build.js';
import { rolloutBucket, rolloutOffset, rolloutPosition } from '@app/contracts';
import { audienceOf, offers, type RolloutOfBuild, selectBuilds, stageOf } from './selection.js';

const build = (fwVersion: string, options: BuildEntityOptions = {}): IndexedBuild => indexed(makeBuildEntity(fwVersion, options));

const sorted = (builds: IndexedBuild[]) => [...builds].sort((a, b) => Buffer.compare(a.versionKey, b.versionKey));
const versions = (builds: IndexedBuild[]) => builds.map((b) => `${b.fwVersion}/${b.fwType}`);
const AFI = typesOf('AFI');

describe('update-check selection (rules 1-4 of selectBuilds)', () => {
  const builds = sorted([
    build('1.0', { general: true }),
    build('1.1', { general: true }),
    build('1.2-rc1', { tags: ['beta'] }),
    build('1.2', { general: true }),
    build('1.3', { tags: ['beta', 'lab'] }),
    build('1.4', { tagFilterDisabled: true }),
    build('1.5', { tags: ['other'] }),
    build('1.6', { general: true, fwType: 'EFI' }),
    build('1.7', { tags: ['beta'], fwType: 'MFI' }),
  ]);

  it('rule 1 and 2: only newer builds, oldest first; general releases for anyone', () => {
    expect(versions(selectBuilds(builds, { currentKey: versionOrderKey('1.0'), types: AFI, device: null, latest: false }))).toEqual(['1.1/AFI', '1.2/AFI']);
    expect(versions(selectBuilds(builds, { currentKey: versionOrderKey('1.2'), types: AFI, device: null, latest: false }))).toEqual([]);
    expect(versions(selectBuilds(builds, { currentKey: versionOrderKey('0.1'), types: AFI, device: null, latest: true }))).toEqual(['1.2/AFI']);
  });

  it('rule 3: a known active device also gets builds sharing a tag, and tag_filter_disabled builds whatever its tags', () => {
    const beta = { tags: ['beta'], bucket: 0 };
    expect(versions(selectBuilds(builds, { currentKey: versionOrderKey('1.1'), types: AFI, device: beta, latest: false }))).toEqual([
      '1.2-rc1/AFI',
      '1.2/AFI',
      '1.3/AFI',
      '1.4/AFI',
    ]);
    expect(versions(selectBuilds(builds, { currentKey: versionOrderKey('1.1'), types: AFI, device: { tags: [], bucket: 0 }, latest: false }))).toEqual([
      '1.2/AFI',
      '1.4/AFI',
    ]);
    expect(versions(selectBuilds(builds, { currentKey: versionOrderKey('1.1'), types: AFI, device: { tags: ['lab'], bucket: 0 }, latest: true }))).toEqual([
      '1.4/AFI',
    ]);
  });

  it('rule 4: no device (unknown or withdrawn): general releases only, tag_filter_disabled included', () => {
    expect(versions(selectBuilds(builds, { currentKey: versionOrderKey('1.1'), types: AFI, device: null, latest: false }))).toEqual(['1.2/AFI']);
  });

  it('type: AFI by default, all, or a list', () => {
    expect(
      versions(selectBuilds(builds, { currentKey: versionOrderKey('1.2'), types: typesOf('all'), device: { tags: ['beta'], bucket: 0 }, latest: false })),
    ).toEqual(['1.3/AFI', '1.4/AFI', '1.6/EFI', '1.7/MFI']);
    expect(versions(selectBuilds(builds, { currentKey: versionOrderKey('1.2'), types: typesOf('EFI,MFI'), device: null, latest: false }))).toEqual(['1.6/EFI']);
    expect(versions(selectBuilds(builds, { currentKey: versionOrderKey('1.2'), types: typesOf(undefined), device: null, latest: false }))).toEqual([]);
    expect(() => typesOf('AFI,XFI')).toThrow('type must be');
  });

  it('no builds for the product line: nothing', () => {
    expect(selectBuilds(undefined, { currentKey: versionOrderKey('1'), types: AFI, device: null, latest: false })).toEqual([]);
  });
});

describe("a build's audience (audienceOf): the rule selectBuilds applies and GET /firmware/{id}/audience counts", () => {
  const withdrawn = makeBuildEntity('2.0', { general: true });
  withdrawn.status = 'withdrawn';
  const cases = [
    { name: 'withdrawn', entity: withdrawn, rule: { rule: 'nobody', tags: [] } },
    { name: 'general', entity: makeBuildEntity('2.0', { general: true, tags: ['beta'] }), rule: { rule: 'every_caller', tags: [] } },
    { name: 'tag_filter_disabled', entity: makeBuildEntity('2.0', { tagFilterDisabled: true, tags: ['beta'] }), rule: { rule: 'known_devices', tags: [] } },
    { name: 'tagged', entity: makeBuildEntity('2.0', { tags: ['beta', 'lab'] }), rule: { rule: 'devices_sharing_tag', tags: ['beta', 'lab'] } },
    { name: 'untagged', entity: makeBuildEntity('2.0'), rule: { rule: 'devices_sharing_tag', tags: [] } },
  ] as const;
  const devices = { none: null, untagged: { tags: [], bucket: 0 }, beta: { tags: ['beta'], bucket: 0 }, other: { tags: ['other', 'x'], bucket: 0 } } as const;

  it('is decided by status, then general release, then tag_filter_disabled, then the tags', () => {
    for (const { entity, rule } of cases) expect(audienceOf(entity)).toEqual(rule);
  });

  it('is exactly what the update check offers each device: selectBuilds agrees with offers() for every build and device', () => {
    const offered: Record<string, string[]> = {};
    for (const { name, entity } of cases) {
      // The index keeps active builds only: a withdrawn one is never in it, and its audience is nobody.
      const inIndex = entity.status === 'active' ? [indexed(entity)] : [];
      for (const [device, known] of Object.entries(devices)) {
        const selected = selectBuilds(inIndex, { currentKey: versionOrderKey('1.0'), types: null, device: known, latest: false }).length === 1;
        expect(selected).toBe(offers(audienceOf(entity), known));
        if (selected) (offered[name] ??= []).push(device);
      }
    }
    expect(offered).toEqual({
      general: ['none', 'untagged', 'beta', 'other'],
      tag_filter_disabled: ['untagged', 'beta', 'other'],
      tagged: ['beta'],
    });
  });
});

describe('a build under a staged rollout (docs/api.md "Rollouts")', () => {
  const ROLLOUT_ID = '5a0c1c47-9a43-4d0b-9f36-0d5f7f1b2c3d';
  const gate = (over: Partial<RolloutOfBuild> = {}): RolloutOfBuild => ({
    id: ROLLOUT_ID,
    offset: rolloutOffset(ROLLOUT_ID),
    thresholds: [100, 1000],
    offering: true,
    extraTags: [],
    ...over,
  });
  // Devices by their position in this rollout: position p has bucket (offset + p) mod 10000.
  const at = (position: number, tags: string[] = []) => ({ tags, bucket: (rolloutOffset(ROLLOUT_ID) + position) % 10_000 });

  it('is offered only to known devices below the last stage threshold, each in the first stage it is below', () => {
    const rule = audienceOf(makeBuildEntity('2.0', { tagFilterDisabled: true }), gate());
    expect(rule.rule).toBe('rollout');
    expect(offers(rule, null)).toBe(false);
    expect(stageOf(rule, at(0))).toBe(0);
    expect(stageOf(rule, at(99))).toBe(0);
    expect(stageOf(rule, at(100))).toBe(1);
    expect(stageOf(rule, at(999))).toBe(1);
    expect(stageOf(rule, at(1000))).toBe(-1);
    expect(offers(rule, at(999))).toBe(true);
    expect(offers(rule, at(1000))).toBe(false);
    // The position is the one the registry counts with: (bucket - offset) mod 10000 of SHA-256(hwid).
    const device = { tags: [], bucket: rolloutBucket('SN-0001') };
    expect(stageOf(rule, device) >= 0).toBe(rolloutPosition(rolloutBucket('SN-0001'), rolloutOffset(ROLLOUT_ID)) < 1000);
  });

  it("keeps the build's own rule (its tags) and the rollout's narrowing tags; a general release under a rollout is not offered to everyone", () => {
    const tagged = audienceOf(makeBuildEntity('2.0', { tags: ['beta'] }), gate());
    expect(offers(tagged, at(1, ['beta']))).toBe(true);
    expect(offers(tagged, at(1, ['other']))).toBe(false);
    const narrowed = audienceOf(makeBuildEntity('2.0', { tagFilterDisabled: true }), gate({ extraTags: ['berlin'] }));
    expect(offers(narrowed, at(1, ['berlin']))).toBe(true);
    expect(offers(narrowed, at(1, []))).toBe(false);
    const general = audienceOf(makeBuildEntity('2.0', { general: true }), gate());
    expect(offers(general, null)).toBe(false);
    expect(offers(general, at(1))).toBe(true);
    expect(offers(general, at(5000))).toBe(false);
  });

  it('a rollout that is not offering (scheduled, halted, aborted) offers the build to nobody; a withdrawn build to nobody', () => {
    expect(offers(audienceOf(makeBuildEntity('2.0', { tagFilterDisabled: true }), gate({ offering: false })), at(0))).toBe(false);
    expect(audienceOf({ ...makeBuildEntity('2.0', { tagFilterDisabled: true }), status: 'withdrawn' }, gate()).rule).toBe('nobody');
  });

  it('selectBuilds offers a rollout build with the others, by the same gate', () => {
    const builds = sorted([build('1.1', { general: true }), indexed(makeBuildEntity('1.2', { tagFilterDisabled: true }), gate())]);
    const select = (device: { tags: string[]; bucket: number } | null) =>
      versions(selectBuilds(builds, { currentKey: versionOrderKey('1.0'), types: AFI, device, latest: false }));
    expect(select(at(5))).toEqual(['1.1/AFI', '1.2/AFI']);
    expect(select(at(5000))).toEqual(['1.1/AFI']);
    expect(select(null)).toEqual(['1.1/AFI']);
  });
});

describe('update-check ETag', () => {
  it('changes with the builds listed and their revisions, and matches If-None-Match weakly', () => {
    const a = build('1.0', { general: true });
    const b = build('1.1', { general: true });
    const etag = listEtag('c', [a, b]);
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(listEtag('c', [a, b])).toBe(etag);
    expect(listEtag('c', [a])).not.toBe(etag);
    expect(listEtag('c', [a, build(b.fwVersion, { revision: 2 })])).not.toBe(etag);
    expect(ifNoneMatchMatches(etag, etag)).toBe(true);
    expect(ifNoneMatchMatches(etag.slice(2), etag)).toBe(true);
    expect(ifNoneMatchMatches(`"x", ${etag}`, etag)).toBe(true);
    expect(ifNoneMatchMatches('*', etag)).toBe(true);
    expect(ifNoneMatchMatches('"other"', etag)).toBe(false);
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
  });
});
