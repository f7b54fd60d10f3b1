import type { KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceClient, DeviceClientError, type Jwks, type UpdateItem } from '@fds/device-client';
import { fetchFrom } from './http-fetch.js';

export interface SimulatedDevice {
  readonly hwid: string;
  readonly hwName: string;
  readonly hwVersion: string;
  readonly fwName: string;
  readonly fwVersion: string;
}

/** Probabilities of what an install does (the rest installs fine); each 0..1, together at most 1. */
export interface OutcomeOdds {
  readonly fail: number;
  readonly rollback: number;
  readonly silent: number;
}

export interface FleetOptions {
  readonly baseUrl: string;
  readonly domain: string;
  readonly devices: readonly SimulatedDevice[];
  /** Polling interval when the service names none, seconds; 0: no background polling (only pollOnce). */
  readonly pollSeconds: number;
  /** Spread of that interval, 0..1 (interval × (1 ± jitter)). */
  readonly jitter: number;
  readonly outcomes: OutcomeOdds;
  /** Pinned key set: answers are verified against it (omitted: not verified). */
  readonly verifyKeys?: Jwks;
  /** Report install outcomes (devices with a key in deviceKeys only). */
  readonly reportOutcomes: boolean;
  readonly deviceKeys?: ReadonlyMap<string, KeyObject>;
  /** Follow the service's polling header (default true); false keeps pollSeconds. */
  readonly followService?: boolean;
  /** The local address device i sends from (e.g. distinct 127.x addresses so per-address limits see many clients). */
  readonly localAddress?: (index: number, hwid: string) => string | undefined;
  /** Random source for outcomes and jitter (default Math.random); seed one for repeatable runs. */
  readonly random?: () => number;
  /** Download offered files (default true); false only checks and pretends the file arrived. */
  readonly download?: boolean;
}

/**
 * A device's state: `idle` (nothing offered yet or up to date), `updated` (installed the last
 * build offered), `failed` (the install failed: still on its old version), `rolling_back`
 * (booted the new build; its next check names it, then it goes back), `rolled_back`,
 * `silent` (stopped checking in after the install, as a bricked device does).
 */
export type DeviceState = 'idle' | 'updated' | 'failed' | 'rolling_back' | 'rolled_back' | 'silent';

export interface FleetDeviceView {
  readonly hwid: string;
  readonly fwVersion: string;
  readonly state: DeviceState;
}

export interface FleetStats {
  checks: number;
  notModified: number;
  downloads: number;
  reports: number;
  reportRefusals: number;
  errors: number;
  /** The last error seen, for a person running the CLI. */
  lastError: string | null;
}

export interface Fleet {
  stop(): Promise<void>;
  devices(): FleetDeviceView[];
  /** Every device that still checks in checks once, all at once, and finishes what the answer leads to. */
  pollOnce(): Promise<void>;
  stats(): FleetStats;
}

class VirtualDevice {
  state: DeviceState = 'idle';
  /** Builds this device will not take again (failed or rolled back). */
  readonly refused = new Set<string>();
  private previousVersion: string | null = null;
  private rollingBack: UpdateItem | null = null;
  private running: Promise<void> = Promise.resolve();
  timer: NodeJS.Timeout | null = null;

  constructor(
    readonly client: DeviceClient,
    private readonly fleet: FleetRun,
  ) {}

  get fwVersion(): string {
    return this.client.identity.fwVersion;
  }

  /** One check and what follows; serialized per device (a background poll and pollOnce never overlap). */
  poll(): Promise<number | null> {
    const next = this.running.then(() => this.pollNow());
    this.running = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /** Resolves when the poll in progress (if any) has finished. */
  settled(): Promise<void> {
    return this.running;
  }

  private async pollNow(): Promise<number | null> {
    if (this.state === 'silent') return null;
    const stats = this.fleet.counters;
    try {
      const answer = await this.client.check();
      stats.checks++;
      if (answer.status === 304) stats.notModified++;
      if (this.rollingBack) {
        // The new build ran long enough to check in once; now it goes back.
        const item = this.rollingBack;
        this.rollingBack = null;
        this.client.installed(this.previousVersion!);
        this.refused.add(item.id);
        this.state = 'rolled_back';
        await this.report(item, 'rolled_back', 'simulated: health check failed after boot, previous image restored');
        return answer.nextPollSeconds;
      }
      const item = answer.items.filter((i) => !this.refused.has(i.id)).at(-1);
      if (item && item.fw_version !== this.fwVersion) await this.take(item);
      return answer.nextPollSeconds;
    } catch (err) {
      stats.errors++;
      stats.lastError = err instanceof Error ? err.message : String(err);
      return err instanceof DeviceClientError ? (err.retryAfterSeconds ?? null) : null;
    }
  }

  private async take(item: UpdateItem): Promise<void> {
    if (this.fleet.options.download !== false) {
      const path = join(this.fleet.directory, `${this.client.identity.hwid.replace(/[^A-Za-z0-9._-]/g, '_')}-${item.id}.bin`);
      try {
        await this.client.download(item, path);
        this.fleet.counters.downloads++;
      } finally {
        await rm(path, { force: true });
      }
    }
    const { fail, rollback, silent } = this.fleet.options.outcomes;
    const r = this.fleet.random();
    if (r < fail) {
      this.refused.add(item.id);
      this.state = 'failed';
      await this.report(item, 'failed', 'simulated: image rejected by the bootloader');
    } else if (r < fail + rollback) {
      this.previousVersion = this.fwVersion;
      this.client.installed(item.fw_version);
      this.rollingBack = item;
      this.state = 'rolling_back';
    } else if (r < fail + rollback + silent) {
      this.client.installed(item.fw_version);
      this.state = 'silent';
    } else {
      this.client.installed(item.fw_version);
      this.state = 'updated';
      await this.report(item, 'installed');
    }
  }

  private async report(item: UpdateItem, outcome: 'installed' | 'failed' | 'rolled_back', reason?: string): Promise<void> {
    if (!this.fleet.options.reportOutcomes || !this.fleet.options.deviceKeys?.has(this.client.identity.hwid)) return;
    try {
      await this.client.report({ buildId: item.id, fwVersion: item.fw_version, outcome, ...(reason ? { reason } : {}) });
      this.fleet.counters.reports++;
    } catch (err) {
      this.fleet.counters.reportRefusals++;
      this.fleet.counters.lastError = err instanceof Error ? err.message : String(err);
    }
  }
}

class FleetRun implements Fleet {
  readonly counters: FleetStats = { checks: 0, notModified: 0, downloads: 0, reports: 0, reportRefusals: 0, errors: 0, lastError: null };
  readonly members: VirtualDevice[];
  private stopped = false;
  readonly random: () => number;

  constructor(
    readonly options: FleetOptions,
    readonly directory: string,
  ) {
    this.random = options.random ?? Math.random;
    this.members = options.devices.map((device, index) => {
      const localAddress = options.localAddress?.(index, device.hwid);
      const client = new DeviceClient({
        baseUrl: options.baseUrl,
        device: { domain: options.domain, ...device },
        ...(options.verifyKeys ? { verifyKeys: options.verifyKeys } : {}),
        ...(options.deviceKeys?.get(device.hwid) ? { deviceKey: options.deviceKeys.get(device.hwid)! } : {}),
        polling: { intervalSeconds: Math.max(1, options.pollSeconds), jitter: options.jitter, random: this.random },
        ...(localAddress ? { fetch: fetchFrom(localAddress) } : {}),
      });
      return new VirtualDevice(client, this);
    });
  }

  stats(): FleetStats {
    return { ...this.counters };
  }

  /** Background polling: each device on its own timer, first check spread over one interval. */
  startTimers(): void {
    if (this.options.pollSeconds <= 0) return;
    for (const device of this.members) this.schedule(device, this.options.pollSeconds * this.random());
  }

  private schedule(device: VirtualDevice, seconds: number): void {
    if (this.stopped || device.state === 'silent') return;
    device.timer = setTimeout(async () => {
      const told = await device.poll();
      const fallback = Math.max(1, this.options.pollSeconds * (1 + this.options.jitter * (2 * this.random() - 1)));
      this.schedule(device, this.options.followService === false || told === null ? fallback : told);
    }, seconds * 1000);
    device.timer.unref?.();
  }

  async pollOnce(): Promise<void> {
    await Promise.all(this.members.map((device) => device.poll()));
  }

  devices(): FleetDeviceView[] {
    return this.members.map((d) => ({ hwid: d.client.identity.hwid, fwVersion: d.fwVersion, state: d.state }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const device of this.members) if (device.timer) clearTimeout(device.timer);
    await Promise.all(this.members.map((device) => device.settled()));
    await rm(this.directory, { recursive: true, force: true });
  }
}

/** Starts N virtual devices of one customer against the real update check (tools/fleet-simulator/README.md). */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const { fail, rollback, silent } = options.outcomes;
  if ([fail, rollback, silent].some((p) => p < 0 || p > 1) || fail + rollback + silent > 1)
    throw new RangeError('outcome probabilities must be 0..1 and add up to at most 1');
  if (options.jitter < 0 || options.jitter > 1) throw new RangeError('jitter must be 0..1');
  const fleet = new FleetRun(options, await mkdtemp(join(tmpdir(), 'fleet-')));
  fleet.startTimers();
  return fleet;
}
