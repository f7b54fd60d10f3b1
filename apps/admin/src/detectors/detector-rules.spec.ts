import { describe, expect, it } from '@jest/globals';
import { DETECTOR_DEFAULTS, loadConfig, parseDetectorSetting } from '@app/infra';
import { enumerationFinding, probingFinding, refusalFinding, scanningFinding, spikeFinding } from './detector-rules.js';

const at = new Date('2026-11-25T12:00:00.000Z');
const hwids = (n: number) => Array.from({ length: n }, (_, i) => ({ domain: 'acme.example', hwid: `HW-${String(i).padStart(4, '0')}` }));

describe('hwid_enumeration with the defaults', () => {
  const setting = loadConfig({}).securityDetectors.kinds.hwid_enumeration;

  it('is critical, 100 distinct unknown HW ids within 5 minutes', () => {
    expect(setting).toMatchObject({ enabled: true, threshold: 100, windowSeconds: 300, severity: 'critical' });
  });

  it('200 distinct unknown HW ids from one address in one minute raise it, with what was seen', () => {
    // A window of 5 minutes holds the whole minute whenever a run falls within 4 minutes after it.
    expect(setting.windowSeconds).toBeGreaterThanOrEqual(60 + 10 + 60);
    const finding = enumerationFinding(setting, at, { ip: '203.0.113.7', requests: 200, checked: 200, unknown: hwids(200) });
    expect(finding).toMatchObject({ kind: 'hwid_enumeration', key: '203.0.113.7' });
    expect(finding!.event).toMatchObject({ kind: 'hwid_enumeration', severity: 'critical', ip: '203.0.113.7', domain: 'acme.example', ts: at.toISOString() });
    expect(finding!.event.detail).toMatchObject({
      address: '203.0.113.7',
      count: 200,
      requests: 200,
      devices_checked: 200,
      threshold: 100,
      window_seconds: 300,
      examples: ['HW-0000', 'HW-0001', 'HW-0002', 'HW-0003', 'HW-0004'],
      domains: ['acme.example'],
    });
  });

  it('known devices do not count: 200 checks of which 99 unknown raise nothing', () => {
    expect(enumerationFinding(setting, at, { ip: '203.0.113.7', requests: 200, checked: 200, unknown: hwids(99) })).toBeNull();
    expect(enumerationFinding(setting, at, { ip: '203.0.113.7', requests: 200, checked: 200, unknown: hwids(100) })).not.toBeNull();
  });

  it('switched off, nothing is raised', () => {
    const off = parseDetectorSetting('X', 'off', setting);
    expect(enumerationFinding(off, at, { ip: '203.0.113.7', requests: 500, checked: 500, unknown: hwids(500) })).toBeNull();
  });
});

describe('the other detectors with the defaults', () => {
  const kinds = loadConfig({}).securityDetectors.kinds;
  const seen = (requests: number, distinct = requests) => ({ ip: '198.51.100.9', requests, distinct, examples: ['/firmware'], domains: [] });

  it('rate_limited: 50 answers 429 within 5 minutes (warn)', () => {
    expect(refusalFinding('rate_limited', kinds.rate_limited, at, seen(49))).toBeNull();
    const finding = refusalFinding('rate_limited', kinds.rate_limited, at, seen(50, 1));
    expect(finding?.event).toMatchObject({ kind: 'rate_limited', severity: 'warn', ip: '198.51.100.9', domain: null });
    expect(finding?.event.detail).toMatchObject({ count: 50, counted: '429 answers', threshold: 50, window_seconds: 300, examples: ['/firmware'] });
  });

  it('auth_failures: 20 answers 401 within 5 minutes (warn)', () => {
    expect(refusalFinding('auth_failures', kinds.auth_failures, at, seen(19))).toBeNull();
    expect(refusalFinding('auth_failures', kinds.auth_failures, at, seen(20))?.event).toMatchObject({ kind: 'auth_failures', severity: 'warn' });
  });

  it('logdata_scanning: 20 distinct names answered 404 within 5 minutes (warn); repeats of one name do not count', () => {
    expect(scanningFinding(kinds.logdata_scanning, at, seen(500, 19))).toBeNull();
    expect(scanningFinding(kinds.logdata_scanning, at, seen(20, 20))?.event.detail).toMatchObject({ count: 20, requests: 20, threshold: 20 });
  });

  it('tenant_probing: 10 refusals customer not found of one credential within 5 minutes (critical), keyed by the credential', () => {
    const seen = (requests: number, addresses: string[]) => ({ actor: 'token:t-1', requests, addresses, examples: ['/logdata'], domains: ['acme.example'] });
    expect(probingFinding(kinds.tenant_probing, at, seen(9, ['198.51.100.9']))).toBeNull();
    const one = probingFinding(kinds.tenant_probing, at, seen(10, ['198.51.100.9']));
    expect(one).toMatchObject({ kind: 'tenant_probing', key: 'token:t-1' });
    expect(one!.event).toMatchObject({ severity: 'critical', ip: '198.51.100.9', domain: 'acme.example' });
    expect(one!.event.detail).toMatchObject({ credential: 'token:t-1', addresses: ['198.51.100.9'], count: 10, threshold: 10, window_seconds: 300 });
    expect(one!.event.detail).not.toHaveProperty('address');
    // From several addresses: the event names none.
    expect(probingFinding(kinds.tenant_probing, at, seen(10, ['198.51.100.9', '198.51.100.10']))!.event.ip).toBeNull();
  });

  it('traffic_spike: at least the floor and 5 times the baseline average per minute', async () => {
    const setting = kinds.traffic_spike;
    expect(setting).toMatchObject({ threshold: 3000, windowSeconds: 60, factor: 5, baselineSeconds: 1800, severity: 'warn' });
    const top = async () => [{ ip: '192.0.2.1', requests: 2500 }];
    // Quiet service: 10 requests a minute before, 2999 now: under the floor.
    expect(spikeFinding(setting, at, { current: 2999, baseline: 300 }, top)).toBeNull();
    // Busy service: 1000 a minute before (30,000 in 30 minutes), 4999 now: under 5 times.
    expect(spikeFinding(setting, at, { current: 4999, baseline: 30_000 }, top)).toBeNull();
    const finding = await spikeFinding(setting, at, { current: 5000, baseline: 30_000 }, top);
    expect(finding).toMatchObject({ kind: 'traffic_spike', key: 'all' });
    expect(finding!.event).toMatchObject({ severity: 'warn', ip: null, domain: null });
    expect(finding!.event.detail).toMatchObject({
      count: 5000,
      baseline_per_window: 1000,
      factor: 5,
      threshold: 3000,
      window_seconds: 60,
      examples: await top(),
    });
  });
});

describe('SECURITY_DETECTOR_<KIND> settings', () => {
  it('keys left out keep their defaults; windows in s, m or h', () => {
    expect(parseDetectorSetting('V', 'threshold=7, window=2m', DETECTOR_DEFAULTS.rate_limited)).toMatchObject({
      enabled: true,
      threshold: 7,
      windowSeconds: 120,
      severity: 'warn',
    });
    expect(parseDetectorSetting('V', 'severity=critical,window=1h', DETECTOR_DEFAULTS.auth_failures)).toMatchObject({
      threshold: 20,
      windowSeconds: 3600,
      severity: 'critical',
    });
    expect(parseDetectorSetting('V', '', DETECTOR_DEFAULTS.auth_failures)).toBe(DETECTOR_DEFAULTS.auth_failures);
  });

  it('anything else stops the start, naming the variable', () => {
    expect(() => loadConfig({ SECURITY_DETECTOR_RATE_LIMITED: 'threshold=0' })).toThrow(/SECURITY_DETECTOR_RATE_LIMITED: "threshold=0"/);
    expect(() => loadConfig({ SECURITY_DETECTOR_AUTH_FAILURES: 'severity=high' })).toThrow(/SECURITY_DETECTOR_AUTH_FAILURES/);
    expect(() => loadConfig({ SECURITY_DETECTOR_TRAFFIC_SPIKE: 'window=10m,baseline=5m' })).toThrow(/baseline must be longer than window/);
    expect(loadConfig({ SECURITY_DETECTOR_LOGDATA_SCANNING: 'off' }).securityDetectors.kinds.logdata_scanning.enabled).toBe(false);
  });
});
