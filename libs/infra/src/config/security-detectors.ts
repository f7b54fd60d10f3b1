/**
 * Settings of the security detectors (docs/operations.md "Security detectors"): for each kind
 * a threshold, a window and a severity, read from one variable per kind in a compact
 * `key=value` list (`threshold=100,window=300s,severity=critical`; keys left out keep their
 * defaults; `off` switches the detector off). The traffic spike also takes `factor` and
 * `baseline`.
 */

export type DetectorSeverity = 'info' | 'warn' | 'critical';

export const DETECTOR_KINDS = ['rate_limited', 'auth_failures', 'hwid_enumeration', 'logdata_scanning', 'tenant_probing', 'traffic_spike'] as const;
export type DetectorKind = (typeof DETECTOR_KINDS)[number];

export interface DetectorSetting {
  readonly enabled: boolean;
  /** What must be reached within the window (its unit depends on the kind; for traffic_spike the floor). */
  readonly threshold: number;
  readonly windowSeconds: number;
  readonly severity: DetectorSeverity;
  /** traffic_spike: the window's requests against this multiple of the baseline's average per window. */
  readonly factor: number;
  /** traffic_spike: the seconds before the window that the baseline averages. */
  readonly baselineSeconds: number;
}

export interface SecurityDetectorSettings {
  /** How often the detection job runs. */
  readonly intervalSeconds: number;
  /** A new event for the same kind and key only after the episode has been quiet this long. */
  readonly cooldownSeconds: number;
  readonly kinds: Readonly<Record<DetectorKind, DetectorSetting>>;
}

const base = { enabled: true, factor: 1, baselineSeconds: 0 } as const;

/** The defaults (docs/api.md lists them with what each detector counts). */
export const DETECTOR_DEFAULTS: Readonly<Record<DetectorKind, DetectorSetting>> = {
  rate_limited: { ...base, threshold: 50, windowSeconds: 300, severity: 'warn' },
  auth_failures: { ...base, threshold: 20, windowSeconds: 300, severity: 'warn' },
  hwid_enumeration: { ...base, threshold: 100, windowSeconds: 300, severity: 'critical' },
  logdata_scanning: { ...base, threshold: 20, windowSeconds: 300, severity: 'warn' },
  tenant_probing: { ...base, threshold: 10, windowSeconds: 300, severity: 'critical' },
  traffic_spike: { ...base, threshold: 3000, windowSeconds: 60, severity: 'warn', factor: 5, baselineSeconds: 1800 },
};

export const DETECTOR_INTERVAL_DEFAULT_SECONDS = 10;
export const DETECTOR_COOLDOWN_DEFAULT_SECONDS = 900;

/** `300`, `300s`, `5m` or `1h`: seconds. */
function seconds(text: string): number | null {
  const match = /^(\d+)\s*(s|m|h)?$/.exec(text);
  if (!match) return null;
  const n = Number(match[1]) * (match[2] === 'h' ? 3600 : match[2] === 'm' ? 60 : 1);
  return n >= 1 ? n : null;
}

/**
 * One detector's setting from its variable (undefined or empty: the defaults). Throws an
 * Error naming the variable for anything it does not understand.
 */
export function parseDetectorSetting(variable: string, raw: string | undefined | null, defaults: DetectorSetting): DetectorSetting {
  const text = raw?.trim() ?? '';
  if (text === '') return defaults;
  if (text === 'off') return { ...defaults, enabled: false };
  const setting: { -readonly [K in keyof DetectorSetting]: DetectorSetting[K] } = { ...defaults };
  for (const part of text.split(',')) {
    const [key, value = '', ...rest] = part.split('=').map((s) => s.trim());
    const bad = (): never => {
      throw new Error(`${variable}: "${part.trim()}" is not one of threshold=N, window=N[s|m|h], severity=info|warn|critical, factor=N, baseline=N[s|m|h]`);
    };
    if (rest.length) bad();
    if (key === 'threshold' && /^\d+$/.test(value) && Number(value) >= 1) setting.threshold = Number(value);
    else if (key === 'window' && seconds(value) !== null) setting.windowSeconds = seconds(value)!;
    else if (key === 'severity' && (value === 'info' || value === 'warn' || value === 'critical')) setting.severity = value;
    else if (key === 'factor' && /^\d+(\.\d+)?$/.test(value) && Number(value) >= 1) setting.factor = Number(value);
    else if (key === 'baseline' && seconds(value) !== null) setting.baselineSeconds = seconds(value)!;
    else bad();
  }
  if (setting.baselineSeconds && setting.baselineSeconds <= setting.windowSeconds) throw new Error(`${variable}: baseline must be longer than window`);
  return setting;
}
