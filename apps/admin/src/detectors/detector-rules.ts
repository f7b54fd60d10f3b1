import type { SecurityEventInput } from '@app/contracts';
import type { DetectorKind, DetectorSetting } from '@app/infra';
import type { AddressCount, CredentialCount } from '../repositories/detector.repository.js';

/**
 * What the detectors decide, apart from the database: whether counts reach a threshold and the
 * event that says so (docs/api.md "Security events" defines each kind).
 */

/** A detector's finding: the episode it belongs to (kind and key) and the event that opens it. */
export interface Finding {
  readonly kind: DetectorKind;
  /** The address, or `all` for the whole service. */
  readonly key: string;
  readonly event: SecurityEventInput;
}

/** What each address-based detector counts, in words (the event's `detail.counted`). */
export const COUNTED: Readonly<Record<Exclude<DetectorKind, 'traffic_spike'>, string>> = {
  rate_limited: '429 answers',
  auth_failures: '401 answers',
  logdata_scanning: 'distinct log-file names answered 404 (GET, HEAD, meta)',
  hwid_enumeration: 'distinct HW ids unknown to the registry in update checks',
  tenant_probing: 'requests refused 404 customer not found (customer= naming a customer the credential may not act on)',
};

/** The one customer an address acted on, if only one (the event's `domain`). */
function onlyDomain(domains: readonly string[]): string | null {
  return domains.length === 1 ? domains[0] : null;
}

/**
 * The finding of an address-based detector, or null below the threshold. `count` is what the
 * threshold applies to (the requests for rate_limited and auth_failures, distinct values for the
 * others).
 */
export function addressFinding(
  kind: Exclude<DetectorKind, 'traffic_spike'>,
  setting: DetectorSetting,
  at: Date,
  seen: { ip: string; count: number; requests: number; examples: readonly string[]; domains: readonly string[] },
  extra: Record<string, unknown> = {},
): Finding | null {
  return finding(kind, seen.ip, seen.ip, setting, at, seen, { address: seen.ip, ...extra });
}

/** The finding of a detector keyed by `key`, its event naming the address `ip` (or none). */
function finding(
  kind: Exclude<DetectorKind, 'traffic_spike'>,
  key: string,
  ip: string | null,
  setting: DetectorSetting,
  at: Date,
  seen: { count: number; requests: number; examples: readonly string[]; domains: readonly string[] },
  extra: Record<string, unknown>,
): Finding | null {
  if (!setting.enabled || seen.count < setting.threshold) return null;
  return {
    kind,
    key,
    event: {
      ts: at.toISOString(),
      kind,
      severity: setting.severity,
      ip,
      domain: onlyDomain(seen.domains),
      detail: {
        ...extra,
        counted: COUNTED[kind],
        count: seen.count,
        requests: seen.requests,
        threshold: setting.threshold,
        window_seconds: setting.windowSeconds,
        examples: [...seen.examples],
        domains: [...seen.domains],
      },
    },
  };
}

/** rate_limited and auth_failures count requests; the examples are routes. */
export function refusalFinding(kind: 'rate_limited' | 'auth_failures', setting: DetectorSetting, at: Date, seen: AddressCount): Finding | null {
  return addressFinding(kind, setting, at, { ...seen, count: seen.requests });
}

/** logdata_scanning counts distinct names; the examples are names. */
export function scanningFinding(setting: DetectorSetting, at: Date, seen: AddressCount): Finding | null {
  return addressFinding('logdata_scanning', setting, at, { ...seen, count: seen.distinct });
}

/**
 * tenant_probing: one credential's requests refused with `customer not found`; the key is the
 * credential, the event's `ip` its address when it used only one.
 */
export function probingFinding(setting: DetectorSetting, at: Date, seen: CredentialCount): Finding | null {
  const ip = seen.addresses.length === 1 ? seen.addresses[0] : null;
  return finding('tenant_probing', seen.actor, ip, setting, at, { ...seen, count: seen.requests }, { credential: seen.actor, addresses: [...seen.addresses] });
}

/**
 * hwid_enumeration: the distinct unknown HW ids (per customer named) of one address's update
 * checks; `checked` counts the distinct devices it named, known or not.
 */
export function enumerationFinding(
  setting: DetectorSetting,
  at: Date,
  seen: { ip: string; requests: number; checked: number; unknown: ReadonlyArray<{ domain: string; hwid: string }> },
): Finding | null {
  const domains = [...new Set(seen.unknown.map((u) => u.domain))].sort().slice(0, 5);
  const examples = seen.unknown
    .map((u) => u.hwid)
    .sort()
    .slice(0, 5);
  return addressFinding(
    'hwid_enumeration',
    setting,
    at,
    { ip: seen.ip, count: seen.unknown.length, requests: seen.requests, examples, domains },
    { devices_checked: seen.checked },
  );
}

/**
 * traffic_spike: the requests of the window against the average per window of the baseline
 * before it. Raised when they reach the floor (`threshold`) and `factor` times that average.
 */
export function spikeFinding(
  setting: DetectorSetting,
  at: Date,
  counts: { current: number; baseline: number },
  topAddresses: () => Promise<Array<{ ip: string; requests: number }>>,
): Promise<Finding | null> | null {
  if (!setting.enabled) return null;
  const baselinePerWindow = (counts.baseline * setting.windowSeconds) / setting.baselineSeconds;
  if (counts.current < setting.threshold || counts.current < setting.factor * baselinePerWindow) return null;
  return topAddresses().then((top) => ({
    kind: 'traffic_spike',
    key: 'all',
    event: {
      ts: at.toISOString(),
      kind: 'traffic_spike',
      severity: setting.severity,
      ip: null,
      domain: null,
      detail: {
        counted: 'requests to the service, all customers',
        count: counts.current,
        threshold: setting.threshold,
        window_seconds: setting.windowSeconds,
        baseline_per_window: Math.round(baselinePerWindow * 10) / 10,
        baseline_seconds: setting.baselineSeconds,
        factor: setting.factor,
        examples: top,
      },
    },
  }));
}

/** A path segment as the request log keeps it (URL-encoded), decoded; undecodable text as it is. */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
