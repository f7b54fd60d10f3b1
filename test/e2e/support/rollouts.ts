import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { expect } from '@jest/globals';
import type { Rollout, RolloutCreate, RolloutDevicePage, RolloutEvaluation } from '@app/contracts';
import { type Fleet, type OutcomeOdds, startFleet } from '../../../tools/fleet-simulator/src/index.js';
import { eventually } from './factories.js';
import { createBuild, type FirmwareBuild, freshClientAddress, productLine } from './firmware.js';
import type { CustomerFixture, Runtime } from './runtime.js';

/** The version every simulated device runs before a rollout, and the build's version. */
export const OLD_VERSION = '1.0';
export const NEW_VERSION = '2.0';

/**
 * A customer's fleet ready for a rollout (docs/api.md "Rollouts"): `count` devices registered
 * with the tag `fleet` (and a report key each when `keys`), each checked in once on the
 * product line with OLD_VERSION (so they are the audience), then the build NEW_VERSION tagged
 * `fleet` uploaded. Nobody checks in between the upload and the rollout's start.
 */
export class RolloutFleet {
  readonly hwids: string[];
  readonly keys = new Map<string, KeyObject>();
  /** One loopback address per device, fresh, so per-address limits never interfere. */
  private readonly addresses = new Map<string, string>();
  private readonly fleets: Fleet[] = [];
  build!: FirmwareBuild;
  readonly line = productLine();

  private constructor(
    readonly rt: Runtime,
    readonly c: CustomerFixture,
    count: number,
    prefix: string,
  ) {
    this.hwids = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
    for (const hwid of this.hwids) this.addresses.set(hwid, freshClientAddress());
  }

  static async create(rt: Runtime, options: { count: number; prefix: string; keys?: boolean; customer?: CustomerFixture }): Promise<RolloutFleet> {
    const fleet = new RolloutFleet(rt, options.customer ?? (await rt.newCustomer()), options.count, options.prefix);
    for (const hwid of fleet.hwids) {
      const keys: string[] = [];
      if (options.keys) {
        const pair = generateKeyPairSync('ed25519');
        fleet.keys.set(hwid, pair.privateKey);
        keys.push(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
      }
      const created = await rt.http.post('/devices', { auth: fleet.c.full, json: { hwid, tags: ['fleet'], ...(keys.length ? { keys } : {}) } });
      expect(created.status).toBe(201);
    }
    // Every device checks in once on the line: the registry then knows its line and version.
    await fleet.poll(fleet.hwids);
    await eventually(
      () => fleet.lastVersions(),
      (versions) => fleet.hwids.every((h) => versions.get(h) === OLD_VERSION),
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    fleet.build = await createBuild(rt, fleet.c.uploader, fleet.line, NEW_VERSION, { tags: ['fleet'] });
    return fleet;
  }

  /**
   * A fleet simulator over some of the devices (tools/fleet-simulator), polling only when told
   * (pollOnce). Each fleet starts from OLD_VERSION unless `from` says otherwise, so a fresh fleet
   * is a fresh set of devices on the old version.
   */
  async simulator(
    hwids: readonly string[],
    outcomes: Partial<OutcomeOdds> = {},
    options: { report?: boolean; from?: string; download?: boolean } = {},
  ): Promise<Fleet> {
    const fleet = await startFleet({
      baseUrl: this.rt.baseUrl,
      domain: this.c.domain,
      devices: hwids.map((hwid) => ({ hwid, hwName: this.line.hw, hwVersion: this.line.rev, fwName: this.line.fw, fwVersion: options.from ?? OLD_VERSION })),
      pollSeconds: 0,
      jitter: 0,
      outcomes: { fail: 0, rollback: 0, silent: 0, ...outcomes },
      reportOutcomes: options.report ?? false,
      deviceKeys: this.keys,
      localAddress: (_index, hwid) => this.addresses.get(hwid),
      download: options.download ?? true,
    });
    this.fleets.push(fleet);
    return fleet;
  }

  /** One check by each of these devices on OLD_VERSION; answers which of them were offered the build (they refuse it, staying on the old version). */
  async poll(hwids: readonly string[]): Promise<Set<string>> {
    const fleet = await this.simulator(hwids, { fail: 1 }, { download: false });
    await fleet.pollOnce();
    expect(fleet.stats().errors).toBe(0);
    await fleet.stop();
    return new Set(
      fleet
        .devices()
        .filter((d) => d.state === 'failed')
        .map((d) => d.hwid),
    );
  }

  async lastVersions(): Promise<Map<string, string | null>> {
    const versions = new Map<string, string | null>();
    for (const hwid of this.hwids) {
      const reply = await this.rt.http.get(`/devices/${encodeURIComponent(hwid)}`, { auth: this.c.readOnly });
      versions.set(hwid, reply.json<{ last_fw_version: string | null }>().last_fw_version);
    }
    return versions;
  }

  async start(body: RolloutCreate): Promise<Rollout> {
    const reply = await this.rt.http.post(`/firmware/${this.build.id}/rollout`, { auth: this.c.full, json: body });
    if (reply.status !== 201) throw new Error(`POST /firmware/{id}/rollout: ${reply.describe()}`);
    return reply.json<Rollout>();
  }

  async rollout(): Promise<Rollout> {
    const reply = await this.rt.http.get(`/firmware/${this.build.id}/rollout`, { auth: this.c.readOnly });
    if (reply.status !== 200) throw new Error(`GET /firmware/{id}/rollout: ${reply.describe()}`);
    return reply.json<Rollout>();
  }

  /** POST /firmware/{id}/rollout/{action}: the reply (200 with the rollout, or a problem). */
  steer(action: 'pause' | 'resume' | 'advance' | 'abort') {
    return this.rt.http.post(`/firmware/${this.build.id}/rollout/${action}`, { auth: this.c.full });
  }

  /** The rollout once `accept` holds (the sightings and reports reach the registry in batches). */
  async rolloutWhen(accept: (r: Rollout) => boolean, what: string): Promise<Rollout> {
    const rollout = await eventually(() => this.rollout(), accept, { timeoutMs: 30_000, intervalMs: 250 });
    if (!accept(rollout))
      throw new Error(
        `the rollout never got to: ${what}; it is ${JSON.stringify({ state: rollout.state, stage: rollout.current_stage, outcomes: rollout.outcomes, offered: offered(rollout) })}`,
      );
    return rollout;
  }

  /** Every device the rollout offered the build to, with the stage of its first offer. */
  async offeredStages(): Promise<Map<string, number>> {
    const stages = new Map<string, number>();
    for (let offset: number | null = 0; offset !== null;) {
      const page: RolloutDevicePage = (
        await this.rt.http.get(`/firmware/${this.build.id}/rollout/devices`, { auth: this.c.readOnly, query: { limit: 500, offset } })
      ).json<RolloutDevicePage>();
      for (const item of page.items) stages.set(item.hwid, item.stage);
      offset = page.next_offset;
    }
    return stages;
  }

  async stop(): Promise<void> {
    await Promise.all(this.fleets.map((f) => f.stop()));
  }
}

/** Devices offered the build over every stage. */
export function offered(rollout: Rollout): number {
  return rollout.stages.reduce((sum, s) => sum + s.offered, 0);
}

/**
 * POST /admin/rollouts/evaluate as the operator's administrator; a run that found the lease
 * taken (the minute job of some process evaluating right then) is asked again.
 */
export async function evaluateRollouts(rt: Runtime): Promise<RolloutEvaluation> {
  const admin = await rt.adminToken();
  const result = await eventually(
    async () => {
      const reply = await rt.http.post('/admin/rollouts/evaluate', { auth: admin });
      expect(reply.status).toBe(200);
      return reply.json<RolloutEvaluation>();
    },
    (r) => !r.skipped,
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  expect(result.skipped).toBe(false);
  return result;
}
