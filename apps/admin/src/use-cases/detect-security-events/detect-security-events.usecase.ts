import { Inject, Injectable } from '@nestjs/common';
import { IdentityMessages, MAX_DEVICE_LOOKUP_BATCH, RegistryMessages } from '@app/contracts';
import { type DetectorSetting, JsonLogger, MessageBus, type SecurityDetectorSettings, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import {
  decodeSegment,
  enumerationFinding,
  type Finding,
  probingFinding,
  refusalFinding,
  scanningFinding,
  spikeFinding,
} from '../../detectors/detector-rules.js';
import { AdminStore } from '../../repositories/admin.store.js';
import { type Window } from '../../repositories/detector.repository.js';
import { Clock } from '../../services/clock.js';
import { RecordSecurityEvent } from '../record-security-event/record-security-event.usecase.js';

/** Episodes quiet this much longer than the cool-down are forgotten. */
const FORGET_AFTER_MS = 24 * 3600 * 1000;
const LOOKUP_TIMEOUT_MS = 10_000;

/**
 * One run of the security detectors (docs/api.md "Security events"; the repeating job is
 * detectors/security-detectors.service.ts): it reads the request log that every gateway replica
 * feeds (admin.request_log), so it counts the traffic of all replicas together, and raises one
 * event per episode through RecordSecurityEvent (critical ones are mailed there). Episodes are
 * claimed in admin.detector_episode, so any number of admin replicas may run it, even at once.
 * Returns the findings that opened an episode.
 */
@Injectable()
export class DetectSecurityEvents {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(RecordSecurityEvent) private readonly events: RecordSecurityEvent,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  private get settings(): SecurityDetectorSettings {
    return this.config.securityDetectors;
  }

  async execute(): Promise<Finding[]> {
    const now = this.clock.now();
    const opened: Finding[] = [];
    for (const [name, detector] of [
      ['rate_limited', () => this.rateLimited(now)],
      ['auth_failures', () => this.authFailures(now)],
      ['logdata_scanning', () => this.logdataScanning(now)],
      ['tenant_probing', () => this.tenantProbing(now)],
      ['hwid_enumeration', () => this.hwidEnumeration(now)],
      ['traffic_spike', () => this.trafficSpike(now)],
    ] as const) {
      try {
        for (const finding of await detector()) if (await this.open(finding, now)) opened.push(finding);
      } catch (err) {
        // A detector that fails (the registry unreachable, say) does not hold up the others; the next run tries again.
        this.logger.warn('security detector failed', { detector: name, error: err instanceof Error ? err.message : String(err) });
      }
    }
    await this.adminStore.repos.detectors.forget(new Date(now.getTime() - this.settings.cooldownSeconds * 1000 - FORGET_AFTER_MS)).catch(() => undefined);
    return opened;
  }

  /** Raises the finding's event if it opens a new episode; true when it did. */
  private async open(finding: Finding, now: Date): Promise<boolean> {
    if (!(await this.adminStore.repos.detectors.sighted(finding.kind, finding.key, now, this.settings.cooldownSeconds * 1000))) return false;
    try {
      const row = await this.events.execute(finding.event);
      if (!row) throw new Error('security event refused');
      await this.adminStore.repos.detectors.attachEvent(finding.kind, finding.key, row.id);
      return true;
    } catch (err) {
      await this.adminStore.repos.detectors.release(finding.kind, finding.key).catch(() => undefined);
      throw err;
    }
  }

  private window(setting: DetectorSetting, now: Date): Window {
    return { from: new Date(now.getTime() - setting.windowSeconds * 1000), to: now };
  }

  private async rateLimited(now: Date): Promise<Finding[]> {
    const setting = this.settings.kinds.rate_limited;
    if (!setting.enabled) return [];
    const seen = await this.adminStore.repos.detectors.refusalsByAddress(429, this.window(setting, now), setting.threshold);
    return seen.map((s) => refusalFinding('rate_limited', setting, now, s)).filter((f): f is Finding => f !== null);
  }

  private async authFailures(now: Date): Promise<Finding[]> {
    const setting = this.settings.kinds.auth_failures;
    if (!setting.enabled) return [];
    const seen = await this.adminStore.repos.detectors.refusalsByAddress(401, this.window(setting, now), setting.threshold);
    return seen.map((s) => refusalFinding('auth_failures', setting, now, s)).filter((f): f is Finding => f !== null);
  }

  private async logdataScanning(now: Date): Promise<Finding[]> {
    const setting = this.settings.kinds.logdata_scanning;
    if (!setting.enabled) return [];
    const seen = await this.adminStore.repos.detectors.missingLogFilesByAddress(this.window(setting, now), setting.threshold);
    return seen.map((s) => scanningFinding(setting, now, s)).filter((f): f is Finding => f !== null);
  }

  private async tenantProbing(now: Date): Promise<Finding[]> {
    const setting = this.settings.kinds.tenant_probing;
    if (!setting.enabled) return [];
    const seen = await this.adminStore.repos.detectors.customerRefusalsByCredential(this.window(setting, now), setting.threshold);
    return seen.map((s) => probingFinding(setting, now, s)).filter((f): f is Finding => f !== null);
  }

  /**
   * Addresses that named at least `threshold` distinct devices in update checks are the
   * candidates; their HW ids are put to the registry (by customer, 500 at a time) and those it
   * does not know are counted. No customer of that domain: none of its HW ids is known.
   */
  private async hwidEnumeration(now: Date): Promise<Finding[]> {
    const setting = this.settings.kinds.hwid_enumeration;
    if (!setting.enabled) return [];
    const window = this.window(setting, now);
    const findings: Finding[] = [];
    for (const candidate of await this.adminStore.repos.detectors.deviceChecksByAddress(window, setting.threshold)) {
      const byDomain = new Map<string, Set<string>>();
      for (const { domain, hwid } of await this.adminStore.repos.detectors.devicesCheckedBy(candidate.ip, window)) {
        const name = decodeSegment(domain).toLowerCase();
        let hwids = byDomain.get(name);
        if (!hwids) byDomain.set(name, (hwids = new Set()));
        hwids.add(decodeSegment(hwid));
      }
      const unknown: Array<{ domain: string; hwid: string }> = [];
      for (const [domain, hwids] of byDomain) for (const hwid of await this.unknownOf(domain, [...hwids])) unknown.push({ domain, hwid });
      const finding = enumerationFinding(setting, now, { ip: candidate.ip, requests: candidate.requests, checked: candidate.distinct, unknown });
      if (finding) findings.push(finding);
    }
    return findings;
  }

  /** The HW ids the registry does not know for the customer of `domain`. */
  private async unknownOf(domain: string, hwids: string[]): Promise<string[]> {
    const customer = await this.bus.send(IdentityMessages.resolveCustomer, { domain }, { timeoutMs: LOOKUP_TIMEOUT_MS });
    if (!customer) return hwids;
    const unknown: string[] = [];
    for (let i = 0; i < hwids.length; i += MAX_DEVICE_LOOKUP_BATCH) {
      const chunk = hwids.slice(i, i + MAX_DEVICE_LOOKUP_BATCH);
      const found = await this.bus.send(RegistryMessages.lookupDevices, { customerId: customer.id, hwids: chunk }, { timeoutMs: LOOKUP_TIMEOUT_MS });
      chunk.forEach((hwid, j) => {
        if (!found[j]) unknown.push(hwid);
      });
    }
    return unknown;
  }

  private async trafficSpike(now: Date): Promise<Finding[]> {
    const setting = this.settings.kinds.traffic_spike;
    if (!setting.enabled) return [];
    const window = this.window(setting, now);
    const counts = await this.adminStore.repos.detectors.requestCounts(new Date(window.from.getTime() - setting.baselineSeconds * 1000), window);
    const finding = await spikeFinding(setting, now, counts, () => this.adminStore.repos.detectors.topAddresses(window));
    return finding ? [finding] : [];
  }
}
