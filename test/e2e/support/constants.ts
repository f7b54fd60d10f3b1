/**
 * The operator settings both runtimes of the e2e suite are started with (docs/configuration.md).
 * Test data is never taken from here: factories.ts draws random names.
 */
export const OPERATOR_DOMAIN = 'operator.test';
export const OPERATOR_ADMIN_EMAIL = 'admin@operator.test';
export const SANDBOX_DOMAIN = 'sandbox.test';

/**
 * Per-address /dl downloads per minute. The 429 test downloads from a loopback address of
 * its own (127.0.0.x), so this limit never starves the other files that download from
 * 127.0.0.1 against the shared distributed stack; it only has to exceed what one file does
 * within a minute.
 */
export const DOWNLOAD_RATE_PER_MINUTE = 60;

/**
 * Login limits of both runtimes. Every file logs people in from 127.0.0.1 (one distributed
 * stack serves the whole run): the per-IP limits are high enough for that; the tests of the
 * limits themselves send from loopback addresses of their own (127.0.0.x). Refresh-token reuse
 * runs as by default: no grace (the grace's 409 is covered by the identity medium tests).
 */
export const LOGIN_RATE_PER_IP_PER_HOUR = 300;
export const LOGIN_VERIFY_RATE_PER_IP_PER_HOUR = 300;
export const LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR = 20;
export const REFRESH_REUSE_GRACE_SECONDS = 0;
export const LOGIN_LIMITS_ENV: Record<string, string> = {
  LOGIN_RATE_PER_IP_PER_HOUR: String(LOGIN_RATE_PER_IP_PER_HOUR),
  LOGIN_VERIFY_RATE_PER_IP_PER_HOUR: String(LOGIN_VERIFY_RATE_PER_IP_PER_HOUR),
  LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR: String(LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR),
  REFRESH_REUSE_GRACE_SECONDS: String(REFRESH_REUSE_GRACE_SECONDS),
};

/**
 * Firmware settings of both runtimes: a small FIRMWARE_MAX_BYTES so that the 413 tests stream
 * past it quickly; the update-check rate per address (its tests send from loopback addresses
 * of their own, 127.0.0.x); and a load stretch of Poll-After that only a gateway really
 * overloaded would apply (UPDATE_CHECK_BUSY_*): the suites share a busy machine, whose
 * event-loop delay alone would otherwise stretch the advice the Poll-After tests check (the
 * stretch itself is unit-tested, apps/gateway load-gauge, and measured by bench:reconnect).
 */
export const FIRMWARE_MAX_BYTES = 4 * 1024 * 1024;
export const UPDATE_CHECK_RATE_PER_MINUTE = 120;
export const FIRMWARE_ENV: Record<string, string> = {
  FIRMWARE_MAX_BYTES: String(FIRMWARE_MAX_BYTES),
  UPDATE_CHECK_RATE_PER_MINUTE: String(UPDATE_CHECK_RATE_PER_MINUTE),
  UPDATE_CHECK_BUSY_LAG_MS: '60000',
  UPDATE_CHECK_BUSY_IN_FLIGHT: '100000',
};

/**
 * TRUSTED_PROXIES of both runtimes: one loopback network no other file sends from (they use
 * 127.0.0.x), so X-Forwarded-For is believed only for the client-address tests, which send
 * from 127.0.1.1 and 127.0.1.2 as "the proxy".
 */
export const TRUSTED_PROXIES = '127.0.1.0/30';
export const PROXY_ENV: Record<string, string> = { TRUSTED_PROXIES };

/**
 * Security detectors of both runtimes (docs/configuration.md): a run every second and small
 * thresholds and windows, so that security-detectors.e2e-spec.ts raises each kind with a few
 * dozen requests from a loopback address of its own (other files' traffic raises events for
 * their addresses too, which nothing minds). The traffic-spike floor is above what other files
 * send in five seconds.
 */
export const DETECTOR_COOLDOWN_SECONDS = 10;
export const DETECTOR_ENV: Record<string, string> = {
  SECURITY_DETECTOR_INTERVAL_SECONDS: '1',
  SECURITY_DETECTOR_COOLDOWN_SECONDS: String(DETECTOR_COOLDOWN_SECONDS),
  SECURITY_DETECTOR_RATE_LIMITED: 'threshold=5,window=60s',
  SECURITY_DETECTOR_AUTH_FAILURES: 'threshold=10,window=60s',
  SECURITY_DETECTOR_HWID_ENUMERATION: 'threshold=30,window=60s',
  SECURITY_DETECTOR_LOGDATA_SCANNING: 'threshold=5,window=60s',
  SECURITY_DETECTOR_TENANT_PROBING: 'threshold=5,window=60s',
  SECURITY_DETECTOR_TRAFFIC_SPIKE: 'threshold=300,window=10s,factor=2,baseline=120s',
};

/**
 * Health history of both runtimes (docs/configuration.md): a sample every second and a roll-up
 * every two, so health.e2e-spec.ts sees samples rolled up into /health/history within seconds.
 */
export const HEALTH_ENV: Record<string, string> = {
  HEALTH_SAMPLE_INTERVAL_SECONDS: '1',
  HEALTH_ROLLUP_INTERVAL_SECONDS: '2',
};

/**
 * The settings both runtimes start with, beside their own stores, bus and mail: the address,
 * the operator's names, the metrics token and the limits above.
 */
export function runtimeSettingsEnv(input: { port: number; baseUrl: string; metricsToken: string }): Record<string, string> {
  return {
    PORT: String(input.port),
    PUBLIC_URL: input.baseUrl,
    OPERATOR_DOMAIN,
    OPERATOR_ADMIN_EMAIL,
    SANDBOX_DOMAIN,
    METRICS_TOKEN: input.metricsToken,
    DOWNLOAD_RATE_PER_MINUTE: String(DOWNLOAD_RATE_PER_MINUTE),
    ...LOGIN_LIMITS_ENV,
    ...FIRMWARE_ENV,
    ...PROXY_ENV,
    ...DETECTOR_ENV,
    ...HEALTH_ENV,
    LOG_LEVEL: 'warn',
  };
}

/** Log-file size limits (docs/api.md "Limits and errors"). */
export const LOGDATA_MAX_BYTES = 16 * 1024 * 1024;
export const LOGDATA_SANDBOX_MAX_BYTES = 256 * 1024;

/** The backend apps (every one but the gateway), as /status lists them. */
export const BACKEND_APPS = ['firmware', 'logdata', 'registry', 'identity', 'admin', 'worker'] as const;
/** Every process of the distributed runtime. */
export const DISTRIBUTED_APPS = ['gateway', 'identity', 'logdata', 'admin', 'registry', 'firmware', 'worker'] as const;
export type DistributedApp = (typeof DISTRIBUTED_APPS)[number];
