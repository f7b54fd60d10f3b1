import { Inject, Injectable } from '@nestjs/common';
import {
  asCustomerId,
  CommonErrors,
  type CustomerId,
  type DeviceLookup,
  type EndpointCall,
  FirmwareErrors,
  type FwType,
  type RolloutOffer,
  rolloutBucket,
  type UpdateCheckParams,
  UpdateCheckQuery,
  type UpdateCheckResult,
  type UpdateItem,
} from '@app/contracts';
import { JsonLogger, type ServiceConfig } from '@app/infra';
import { contractCheck, CustomerDirectory, DeviceDirectory, DeviceSightings, SERVICE_CONFIG } from '@app/platform';
import { versionOrderKey } from '../domain/version-order.js';
import { fnv1a } from './fnv1a.js';
import { BuildIndex, type CustomerIndex, lineOf, type ProductLine } from './build-index.js';
import type { IndexedBuild } from './indexed-build.js';
import { type Answer, AnswerCache } from './answer-cache.js';
import { contentDigestOf } from './answer-signature.js';
import { AnswerSigner } from './answer-signer.js';
import { pollAfterSeconds } from './poll-advice.js';
import { type KnownDevice, needsDevice, selectBuilds, stageOf } from './selection.js';
import { LINK_REUSE_MS, UpdateLinks } from './update-links.js';

/** Cache-Control max-age of update-check answers (the links inside stay valid ≥ 4 minutes). */
export const UPDATE_CHECK_MAX_AGE_SECONDS = 60;

type UpdateCheckCall = EndpointCall<UpdateCheckParams, UpdateCheckQuery, undefined>;

const ALL_TYPES: ReadonlySet<FwType> | null = null;
const AFI_ONLY: ReadonlySet<FwType> = new Set(['AFI']);

/** The contract's rule for `type` (AFI, all, or a comma list of AFI, EFI and MFI) and its message. */
const validType = contractCheck(UpdateCheckQuery.properties.type);
/** The sets of the comma lists seen (fleets send few): checked and built once each, then shared; bounded. */
const typeSets = new Map<string, ReadonlySet<FwType>>();

/** The types a check asks for (null: all); `type` as the contract allows it (400 otherwise). */
export function typesOf(type: string | undefined): ReadonlySet<FwType> | null {
  if (type === undefined || type === 'AFI') return AFI_ONLY;
  if (type === 'all') return ALL_TYPES;
  let types = typeSets.get(type);
  if (!types) {
    types = new Set(validType(type).split(',') as FwType[]);
    if (typeSets.size >= 64) typeSets.clear();
    typeSets.set(type, types);
  }
  return types;
}

/**
 * Weak ETag over the builds offered (id and revision of each, in order): two independent
 * FNV-1a hashes (64 bits), cheap on the hot path; an ETag only has to change with the list.
 */
export function listEtag(customerId: string, builds: readonly IndexedBuild[]): string {
  let a = fnv1a(customerId, 0x811c9dc5);
  let b = fnv1a(customerId, 0x01000193);
  for (const build of builds) {
    a = fnv1a(build.etagPart, fnv1a('|', a));
    b = fnv1a(build.etagPart, fnv1a('#', b));
  }
  return `W/"${a.toString(36)}-${b.toString(36)}-${builds.length}"`;
}

/** The request target of a check that did not come through the gateway (tests): the path its parameters name, no query. */
function targetOf(params: UpdateCheckParams): { path: string; query: string } {
  const segments = [params.domain, params.hw_name, params.hw_version, params.fw_name, params.fw_version, ...(params.hwid === undefined ? [] : [params.hwid])];
  return { path: `/firmware/${segments.map(encodeURIComponent).join('/')}`, query: '' };
}

/** versionOrderKey() of the versions devices report (a fleet runs few versions): bounded memo. */
const currentKeys = new Map<string, string>();
function currentKeyOf(fwVersion: string): string {
  let key = currentKeys.get(fwVersion);
  if (!key) {
    if (currentKeys.size >= 10_000) currentKeys.clear();
    key = versionOrderKey(fwVersion);
    currentKeys.set(fwVersion, key);
  }
  return key;
}

/** `fn` of the value: at once when it is not a promise (what is cached comes back as it is). */
function andThen<T, R>(value: T | Promise<T>, fn: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}

/** If-None-Match (weak comparison, RFC 9110 13.1.2): `*` or a list of entity tags. */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const raw of header.split(',')) {
    const value = raw.trim();
    if (value === '*') return true;
    if ((value.startsWith('W/') ? value.slice(2) : value) === opaque) return true;
  }
  return false;
}

/**
 * Memory for kept answers (their JSON text), all customers together: past it the oldest are
 * dropped (public input, such as arbitrary fw_version values, cannot grow memory beyond it).
 */
export const UPDATE_ANSWERS_MAX_BYTES = 32 * 1024 * 1024;

/** The variant key of a device's tags ("+" and the tags), once per tags array (a cached device keeps its array). */
const tagsKeys = new WeakMap<readonly string[], string>();
function tagsKey(tags: readonly string[]): string {
  let key = tagsKeys.get(tags);
  if (key === undefined) {
    key = `+${tags.join('\u0001')}`;
    tagsKeys.set(tags, key);
  }
  return key;
}

/**
 * The part of the answer's variant that the line's rollouts decide: one mark per rollout build
 * newer than the device's version, whether its stages reached the device. Devices in the same
 * stages share answers; nothing when the line has no rollout (the common case).
 */
function rolloutsKey(line: ProductLine | undefined, currentKey: string, device: KnownDevice): string {
  const gated = line?.rolloutBuilds;
  if (!gated || gated.length === 0) return '';
  let key = '|';
  for (const build of gated) if (build.orderKey > currentKey) key += stageOf(build.audience, device) >= 0 ? '1' : '0';
  return key;
}

/** The rollout offers of an answer to this device: each offered rollout build with the stage that reached the device. */
function offersOf(rollouts: readonly IndexedBuild[], device: KnownDevice): RolloutOffer[] {
  return rollouts.map((build) => ({
    rolloutId: build.audience.rollout!.id,
    buildId: build.id,
    versionKey: build.versionKey.toString('hex'),
    stage: stageOf(build.audience, device),
  }));
}

/**
 * The public update check (docs/api.md, update check). The common path reads
 * memory only: the customer from CustomerDirectory's cache, the builds from BuildIndex, the
 * device (only when a newer build could be offered through its tags) from DeviceDirectory's
 * cache; the sighting of a named device is batched to the registry (DeviceSightings). No
 * database query, no write, and no await when all of it is cached.
 *
 * Fleets poll with few distinct inputs (product line, version, type, the device's tags), so
 * the answer itself (the items' JSON and their ETag) is kept, tied to the customer index it
 * came from: unused once the customer's builds change (a new index), rebuilt when its links
 * need re-signing; all customers' answers together are bounded by UPDATE_ANSWERS_MAX_BYTES.
 */
@Injectable()
export class UpdateCheckService {
  private readonly logger = new JsonLogger('firmware');
  private lastRegistryWarning = 0;
  private readonly answers = new AnswerCache(UPDATE_ANSWERS_MAX_BYTES);

  constructor(
    @Inject(CustomerDirectory) private readonly customers: CustomerDirectory,
    @Inject(BuildIndex) private readonly index: BuildIndex,
    @Inject(DeviceDirectory) private readonly devices: DeviceDirectory,
    @Inject(DeviceSightings) private readonly sightings: DeviceSightings,
    @Inject(UpdateLinks) private readonly links: UpdateLinks,
    @Inject(AnswerSigner) private readonly signer: AnswerSigner,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /**
   * The answer to one check. With the customer, its index and the device cached (the common
   * path) it comes back at once, not in a promise: the in-process bus then settles the
   * request without further promises or a timer.
   */
  check(call: UpdateCheckCall): UpdateCheckResult | Promise<UpdateCheckResult> {
    const params = call.params;
    if (!params || typeof params.domain !== 'string' || typeof params.fw_version !== 'string') throw FirmwareErrors.update_check_invalid();
    return andThen(this.customers.byDomain(params.domain), (customer) => {
      if (!customer || customer.status !== 'active') throw CommonErrors.customer_not_found();
      const customerId = asCustomerId(customer.id);
      const pollSeconds = customer.pollIntervalSeconds ?? this.config.updatePollSeconds;
      return andThen(this.index.get(customerId), (index) => this.checkIn(index, customerId, pollSeconds, params, call));
    });
  }

  private checkIn(
    index: CustomerIndex,
    customerId: CustomerId,
    pollSeconds: number,
    params: UpdateCheckParams,
    call: UpdateCheckCall,
  ): UpdateCheckResult | Promise<UpdateCheckResult> {
    const query = call.query ?? {};
    const line = lineOf(index, params.hw_name, params.hw_version, params.fw_name);
    const builds = line?.builds;
    const currentKey = currentKeyOf(params.fw_version);
    const types = typesOf(query.type);
    const hwid = params.hwid;
    const seenAt = Date.now();
    let device: KnownDevice | null | Promise<KnownDevice | null> = null;
    if (hwid !== undefined && builds && needsDevice(builds, { currentKey, types })) device = this.device(customerId, hwid);
    return andThen(device, (known) => {
      const answer = this.answerFor(line, customerId, params.fw_version, currentKey, types, query, known);
      // The sighting carries the rollout builds this answer offers (first offer per device and rollout: the registry keeps it); no write here.
      if (hwid !== undefined)
        this.sightings.record(
          customerId,
          hwid,
          params.fw_version,
          seenAt,
          params,
          currentKey,
          known && answer.rollouts ? offersOf(answer.rollouts, known) : undefined,
        );
      const now = Date.now();
      const target = call.target ?? targetOf(params);
      const pollAfter = pollAfterSeconds(pollSeconds, params.hwid ?? `${call.ctx.ip} ${target.path}`, now);
      if (ifNoneMatchMatches(call.headers?.['if-none-match'], answer.etag))
        return { kind: 'not-modified', etag: answer.etag, maxAgeSeconds: UPDATE_CHECK_MAX_AGE_SECONDS, pollAfterSeconds: pollAfter };
      const signature = this.signer.sign(answer.contentDigest, target.path, target.query, now);
      return { kind: 'items', body: answer.body, etag: answer.etag, maxAgeSeconds: UPDATE_CHECK_MAX_AGE_SECONDS, pollAfterSeconds: pollAfter, signature };
    });
  }

  /**
   * The answer for a device as the check sees it (`known`: null for none, unknown or
   * withdrawn), kept per line, version and variant (type, latest, the device's tags).
   */
  private answerFor(
    line: ProductLine | undefined,
    customerId: CustomerId,
    fwVersion: string,
    currentKey: string,
    types: ReadonlySet<FwType> | null,
    query: UpdateCheckQuery,
    known: KnownDevice | null,
  ): Answer {
    const latest = query.latest === true;
    const devicePart = known ? tagsKey(known.tags) + rolloutsKey(line, currentKey, known) : '-';
    const variant = query.type === undefined && !latest ? devicePart : `${query.type ?? ''}\u0001${latest ? 1 : 0}\u0001${devicePart}`;
    return this.answer(line, fwVersion, variant, customerId, () => selectBuilds(line?.builds, { currentKey, types, device: known, latest }));
  }

  /**
   * The items the check naming a device would answer now (GET /devices/{hwid}/update-preview),
   * through the check's own steps (index, device only when a tag-filtered build could be
   * offered, answer) with the device's lookup given (`known`: null for a withdrawn device), and
   * no sighting recorded. A bad `type` is the check's 400.
   */
  async preview(
    customerId: CustomerId,
    params: Omit<UpdateCheckParams, 'domain' | 'hwid'>,
    query: UpdateCheckQuery,
    known: KnownDevice | null,
  ): Promise<UpdateItem[]> {
    const index = await this.index.get(customerId);
    const line = lineOf(index, params.hw_name, params.hw_version, params.fw_name);
    const currentKey = currentKeyOf(params.fw_version);
    const types = typesOf(query.type);
    const device = line && needsDevice(line.builds, { currentKey, types }) ? known : null;
    return JSON.parse(this.answerFor(line, customerId, params.fw_version, currentKey, types, query, device).body) as UpdateItem[];
  }

  /**
   * The kept answer of the line for this version and variant, or a new one from the builds
   * `select` picks. An unknown product line (no builds) is answered afresh, not kept: public
   * input must not fill the cache, and its answer is the empty list.
   */
  private answer(line: ProductLine | undefined, version: string, variant: string, customerId: string, select: () => IndexedBuild[]): Answer {
    const now = Date.now();
    const found = line && this.answers.get(line, version, variant);
    if (found && now - found.signedAt < LINK_REUSE_MS) return found;
    const selected = select();
    let signedAt = now;
    const items: UpdateItem[] = selected.map((build) => {
      const links = this.links.linksOf(build, now);
      signedAt = Math.min(signedAt, links.signedAt);
      return { ...build.item, url: links.url, notes_url: links.notesUrl };
    });
    const body = JSON.stringify(items);
    const rollouts = selected.filter((build) => build.audience.rule === 'rollout');
    const answer: Answer = {
      etag: listEtag(customerId, selected),
      body,
      contentDigest: contentDigestOf(body),
      signedAt,
      rollouts: rollouts.length ? rollouts : undefined,
    };
    if (line) this.answers.set(line, version, variant, answer);
    return answer;
  }

  /** UPDATE_ANSWERS_MAX_BYTES; tests lower it. */
  get maxAnswerBytes(): number {
    return this.answers.maxBytes;
  }

  set maxAnswerBytes(bytes: number) {
    this.answers.maxBytes = bytes;
  }

  /** Answers kept and their size (bytes, approximately), for tests and diagnostics. */
  get keptAnswers(): { readonly count: number; readonly bytes: number } {
    return this.answers.kept;
  }

  /** A known, active device, or null (a device unknown or not active gets no tag-filtered builds). A registry that cannot answer counts as "unknown". */
  private device(customerId: string, hwid: string): KnownDevice | null | Promise<KnownDevice | null> {
    const known = (device: DeviceLookup | null): KnownDevice | null =>
      device && device.status === 'active' ? { tags: device.tags, bucket: device.bucket ?? rolloutBucket(hwid) } : null;
    const found = this.devices.lookup(customerId, hwid);
    return found instanceof Promise ? found.then(known, (err: unknown) => this.unknownAfter(err)) : known(found);
  }

  private unknownAfter(err: unknown): null {
    const now = Date.now();
    if (now - this.lastRegistryWarning > 10_000) {
      this.lastRegistryWarning = now;
      this.logger.warn('device lookup failed: answering as for an unknown device', { error: err instanceof Error ? err.message : String(err) });
    }
    return null;
  }
}
