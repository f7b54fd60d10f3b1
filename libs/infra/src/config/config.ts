import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import proxyaddr from 'proxy-addr';
import {
  DETECTOR_COOLDOWN_DEFAULT_SECONDS,
  DETECTOR_DEFAULTS,
  DETECTOR_INTERVAL_DEFAULT_SECONDS,
  parseDetectorSetting,
  type SecurityDetectorSettings,
} from './security-detectors.js';

/**
 * The operator settings (docs/configuration.md "Variables"). Read once at start; every
 * adapter choice below derives from it, so domain code never looks at the environment.
 */
export interface ServiceConfig {
  readonly port: number;
  readonly publicUrl: string;
  /**
   * Peers whose X-Forwarded-For is believed (CIDR networks or proxy-addr's names such as
   * `loopback`); empty, the client address is the socket's (docs/operations.md "Behind a proxy").
   */
  readonly trustedProxies: readonly string[];
  readonly dataDir: string;
  readonly operatorDomain: string;
  readonly operatorAdminEmail: string | null;
  readonly sandboxDomain: string | null;
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  readonly metricsToken: string | null;
  /**
   * Port of a backend app's health listener (/livez, /readyz, /startupz, /metrics); 0: none.
   * Null when HEALTH_PORT is unset: 9464 in a distributed app, none in standalone mode.
   */
  readonly healthPort: number | null;
  /** The commit this build was made from (fds_build_info), when the deployment says so. */
  readonly buildCommit: string | null;
  readonly databaseUrl: string | null;
  /** Connections of each app's PostgreSQL pool (one pool per app per process). */
  readonly databasePoolSize: number;
  /** The embedded database's shared buffers in MiB (its page cache inside the process; docs/configuration.md). */
  readonly embeddedSharedBuffersMb: number;
  readonly natsUrl: string | null;
  readonly redisUrl: string | null;
  readonly s3: S3Config | null;
  /** HMAC key of /dl download links; generated under DATA_DIR in embedded mode. */
  readonly downloadLinkSecret: string | null;
  readonly firmwareMaxBytes: number;
  /** Seconds a gateway trusts a cached credential or customer status (revocation delay bound). */
  readonly credentialCacheSeconds: number;
  /** Per-address downloads through /dl links allowed per minute. */
  readonly downloadRatePerMinute: number;
  /** Per-address public update checks allowed per minute (each gateway counts its own). */
  readonly updateCheckRatePerMinute: number;
  /** Per-address device reports (POST /firmware/{domain}/reports/{hwid}) allowed per minute (each gateway counts its own). */
  readonly deviceReportRatePerMinute: number;
  /** Seconds a device is advised to wait between update checks (Poll-After) when its customer sets none. */
  readonly updatePollSeconds: number;
  /** Update-check overload thresholds of a gateway: past either, Poll-After is lengthened (docs/api.md "When to check again"). */
  readonly updateCheckBusyInFlight: number;
  readonly updateCheckBusyLagMs: number;
  /** Console login limits (identity): POST /auth/login per client address per hour. */
  readonly loginRatePerIpPerHour: number;
  /** Code verifications and magic-link confirmations per client address per hour. */
  readonly loginVerifyRatePerIpPerHour: number;
  /** Code verifications and magic-link confirmations per email address per hour. */
  readonly loginVerifyRatePerEmailPerHour: number;
  /**
   * Seconds after a rotation in which the old refresh token presented again is refused (409)
   * without ending the session; 0 (the default), any replay is reuse and ends it.
   */
  readonly refreshReuseGraceSeconds: number;
  /** The admin app's security detectors (docs/operations.md "Security detectors"). */
  readonly securityDetectors: SecurityDetectorSettings;
  /** Days of request-log entries kept: older daily partitions are dropped whole (RequestLogRetention). */
  readonly requestLogRetentionDays: number;
  /** How often each gateway samples every part's state for the health history (ServiceHealth). */
  readonly healthSampleSeconds: number;
  /** How often the admin app rolls the samples up into daily uptime (the health-rollup job). */
  readonly healthRollupSeconds: number;
  /** Backups (docs/operations.md "Backups and restores"). */
  readonly backup: BackupConfig;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
}

export interface S3Config {
  readonly endpoint: string | null;
  /**
   * Where devices and browsers reach the object store, when not at `endpoint` (an in-cluster
   * address, say): pre-signed download URLs are signed for this address instead.
   */
  readonly publicEndpoint: string | null;
  readonly bucket: string;
  readonly region: string;
  readonly accessKeyId: string | null;
  readonly secretAccessKey: string | null;
  readonly forcePathStyle: boolean;
}

export interface BackupConfig {
  /**
   * The age recipient (`age1…`) archives are encrypted to: BACKUP_PUBLIC_KEY, or in the
   * standalone runtime on the local backend the generated pair's (backup-key.ts); null:
   * backups are refused.
   */
  readonly publicKey: string | null;
  /**
   * The secret half of the generated key pair (standalone, local backend, no
   * BACKUP_PUBLIC_KEY): verify and restore read it when a request brings no key. Null: the
   * service holds no secret key, and every verify and restore must bring one.
   */
  readonly generatedKeyFile: string | null;
  /** The local backend's directory. */
  readonly dir: string;
  /** The off-site backend (BACKUP_S3_BUCKET set); it replaces the directory. */
  readonly s3: S3Config | null;
  /** Period of the scheduled backup; null: no scheduled backups. */
  readonly everyMs: number | null;
  /** Archives kept: after each backup the older ones beyond this many are removed. */
  readonly keep: number;
}

/** An X25519 age recipient (the public half of a backup key pair). */
const AGE_RECIPIENT = /^age1[02-9ac-hj-np-z]{58}$/;
/** BACKUP_SCHEDULE: `off` or an interval such as `24h`, `6h`, `90m`. */
const INTERVAL = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`${name} must be an integer ${range}, got "${raw}"`);
  }
  return value;
}

/**
 * The largest firmware binary FIRMWARE_MAX_BYTES may allow: 5 GiB, the largest object S3
 * copies in one request (CopyObject). A restore moves each stored file back into place with
 * one such copy.
 */
export const FIRMWARE_MAX_BYTES_LIMIT = 5 * 1024 ** 3;

function optional(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name]?.trim();
  return raw ? raw : null;
}

/**
 * The variables that carry secrets (credentials, keys, addresses with passwords). Each may
 * instead be read from a file: `NAME_FILE` names a file whose content is the value (a mounted
 * Secret, a Docker secret), so the value stays out of the environment (docs/configuration.md).
 */
export const SECRET_VARIABLES = [
  'SMTP_URL',
  'METRICS_TOKEN',
  'DATABASE_URL',
  'NATS_URL',
  'REDIS_URL',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'DOWNLOAD_LINK_SECRET',
  'BACKUP_S3_ACCESS_KEY_ID',
  'BACKUP_S3_SECRET_ACCESS_KEY',
] as const;
export type SecretVariable = (typeof SECRET_VARIABLES)[number];

/** A secret variable: `NAME`, or the content of the file `NAME_FILE` names, without its final newline. */
function secret(env: NodeJS.ProcessEnv, name: SecretVariable): string | null {
  const direct = optional(env, name);
  const file = optional(env, `${name}_FILE`);
  if (file === null) return direct;
  if (direct !== null) throw new ConfigError(`${name} and ${name}_FILE are both set: set one of them`);
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${name}_FILE names ${file}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const value = content.replace(/\r?\n$/, '');
  if (value.trim() === '') throw new ConfigError(`${name}_FILE names ${file}, which is empty`);
  return value;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** An optional absolute http(s) address, without a trailing slash. */
function httpUrl(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = optional(env, name);
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http or https URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an absolute http or https URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** TRUSTED_PROXIES: a comma-separated list, each entry checked by the library that will use it. */
function trustedProxies(env: NodeJS.ProcessEnv): readonly string[] {
  const list = (optional(env, 'TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    if (list.length) proxyaddr.compile(list);
  } catch (err) {
    throw new ConfigError(`TRUSTED_PROXIES must be comma-separated addresses or CIDR networks: ${(err as Error).message}`);
  }
  return list;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const port = integer(env, 'PORT', 8080);
  const publicUrl = (optional(env, 'PUBLIC_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  let publicHost: string;
  try {
    publicHost = new URL(publicUrl).hostname;
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute URL, got "${publicUrl}"`);
  }
  const bucket = optional(env, 'S3_BUCKET');
  const s3: S3Config | null = bucket
    ? {
        endpoint: optional(env, 'S3_ENDPOINT'),
        publicEndpoint: httpUrl(env, 'S3_PUBLIC_ENDPOINT'),
        bucket,
        region: optional(env, 'S3_REGION') ?? 'us-east-1',
        accessKeyId: secret(env, 'S3_ACCESS_KEY_ID'),
        secretAccessKey: secret(env, 'S3_SECRET_ACCESS_KEY'),
        forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
      }
    : null;
  const level = (optional(env, 'LOG_LEVEL') ?? 'info') as ServiceConfig['logLevel'];
  if (!['debug', 'info', 'warn', 'error'].includes(level)) throw new ConfigError(`LOG_LEVEL must be debug, info, warn or error`);
  return {
    port,
    publicUrl,
    trustedProxies: trustedProxies(env),
    dataDir: resolve(optional(env, 'DATA_DIR') ?? './data'),
    operatorDomain: (optional(env, 'OPERATOR_DOMAIN') ?? 'operator.local').toLowerCase(),
    operatorAdminEmail: optional(env, 'OPERATOR_ADMIN_EMAIL')?.toLowerCase() ?? null,
    sandboxDomain: optional(env, 'SANDBOX_DOMAIN')?.toLowerCase() ?? null,
    smtpUrl: secret(env, 'SMTP_URL'),
    mailFrom: optional(env, 'MAIL_FROM') ?? `no-reply@${publicHost}`,
    metricsToken: secret(env, 'METRICS_TOKEN'),
    healthPort: optional(env, 'HEALTH_PORT') === null ? null : integer(env, 'HEALTH_PORT', 0, 0, 65535),
    buildCommit: optional(env, 'BUILD_COMMIT'),
    databaseUrl: secret(env, 'DATABASE_URL'),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 100),
    embeddedSharedBuffersMb: integer(env, 'EMBEDDED_DB_SHARED_BUFFERS_MB', 16, 1, 1024),
    natsUrl: secret(env, 'NATS_URL'),
    redisUrl: secret(env, 'REDIS_URL'),
    s3,
    downloadLinkSecret: secret(env, 'DOWNLOAD_LINK_SECRET'),
    firmwareMaxBytes: integer(env, 'FIRMWARE_MAX_BYTES', 512 * 1024 * 1024, 1, FIRMWARE_MAX_BYTES_LIMIT),
    credentialCacheSeconds: Math.min(integer(env, 'CREDENTIAL_CACHE_SECONDS', 15, 0), 30),
    downloadRatePerMinute: integer(env, 'DOWNLOAD_RATE_PER_MINUTE', 120, 1),
    updateCheckRatePerMinute: integer(env, 'UPDATE_CHECK_RATE_PER_MINUTE', 300, 1),
    deviceReportRatePerMinute: integer(env, 'DEVICE_REPORT_RATE_PER_MINUTE', 30, 1),
    updatePollSeconds: integer(env, 'UPDATE_POLL_SECONDS', 3600, 60, 604_800),
    updateCheckBusyInFlight: integer(env, 'UPDATE_CHECK_BUSY_IN_FLIGHT', 512, 1),
    updateCheckBusyLagMs: integer(env, 'UPDATE_CHECK_BUSY_LAG_MS', 100, 1),
    loginRatePerIpPerHour: integer(env, 'LOGIN_RATE_PER_IP_PER_HOUR', 100, 1),
    loginVerifyRatePerIpPerHour: integer(env, 'LOGIN_VERIFY_RATE_PER_IP_PER_HOUR', 100, 1),
    loginVerifyRatePerEmailPerHour: integer(env, 'LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR', 50, 1),
    refreshReuseGraceSeconds: Math.min(integer(env, 'REFRESH_REUSE_GRACE_SECONDS', 0, 0), 60),
    securityDetectors: securityDetectors(env),
    requestLogRetentionDays: integer(env, 'REQUEST_LOG_RETENTION_DAYS', 30, 1),
    healthSampleSeconds: integer(env, 'HEALTH_SAMPLE_INTERVAL_SECONDS', 60, 1),
    healthRollupSeconds: integer(env, 'HEALTH_ROLLUP_INTERVAL_SECONDS', 3600, 1),
    backup: backupConfig(env, resolve(optional(env, 'DATA_DIR') ?? './data')),
    logLevel: level,
  };
}

function backupConfig(env: NodeJS.ProcessEnv, dataDir: string): BackupConfig {
  const publicKey = optional(env, 'BACKUP_PUBLIC_KEY');
  if (publicKey && !AGE_RECIPIENT.test(publicKey))
    throw new ConfigError('BACKUP_PUBLIC_KEY must be an age X25519 recipient (age1...), as `npm run cli -- backup keygen` prints');
  const schedule = (optional(env, 'BACKUP_SCHEDULE') ?? '24h').toLowerCase();
  const interval = INTERVAL.exec(schedule);
  if (schedule !== 'off' && (!interval || Number(interval[1]) === 0))
    throw new ConfigError(`BACKUP_SCHEDULE must be off or an interval such as 24h, 6h or 90m, got "${schedule}"`);
  const bucket = optional(env, 'BACKUP_S3_BUCKET');
  return {
    publicKey,
    generatedKeyFile: null,
    dir: resolve(optional(env, 'BACKUP_DIR') ?? `${dataDir}/backups`),
    s3: bucket
      ? {
          endpoint: optional(env, 'BACKUP_S3_ENDPOINT'),
          publicEndpoint: null,
          bucket,
          region: optional(env, 'BACKUP_S3_REGION') ?? 'us-east-1',
          accessKeyId: secret(env, 'BACKUP_S3_ACCESS_KEY_ID'),
          secretAccessKey: secret(env, 'BACKUP_S3_SECRET_ACCESS_KEY'),
          forcePathStyle: bool(env, 'BACKUP_S3_FORCE_PATH_STYLE', false),
        }
      : null,
    everyMs: interval ? Number(interval[1]) * UNIT_MS[interval[2] as keyof typeof UNIT_MS] : null,
    keep: integer(env, 'BACKUP_KEEP', 7, 1),
  };
}

/** One variable per detector kind (security-detectors.ts describes the format). */
function securityDetectors(env: NodeJS.ProcessEnv): SecurityDetectorSettings {
  const kind = (variable: string, raw: string | null, defaults: (typeof DETECTOR_DEFAULTS)[keyof typeof DETECTOR_DEFAULTS]) => {
    try {
      return parseDetectorSetting(variable, raw, defaults);
    } catch (err) {
      throw new ConfigError((err as Error).message);
    }
  };
  return {
    intervalSeconds: integer(env, 'SECURITY_DETECTOR_INTERVAL_SECONDS', DETECTOR_INTERVAL_DEFAULT_SECONDS, 1),
    cooldownSeconds: integer(env, 'SECURITY_DETECTOR_COOLDOWN_SECONDS', DETECTOR_COOLDOWN_DEFAULT_SECONDS, 0),
    kinds: {
      rate_limited: kind('SECURITY_DETECTOR_RATE_LIMITED', optional(env, 'SECURITY_DETECTOR_RATE_LIMITED'), DETECTOR_DEFAULTS.rate_limited),
      auth_failures: kind('SECURITY_DETECTOR_AUTH_FAILURES', optional(env, 'SECURITY_DETECTOR_AUTH_FAILURES'), DETECTOR_DEFAULTS.auth_failures),
      hwid_enumeration: kind('SECURITY_DETECTOR_HWID_ENUMERATION', optional(env, 'SECURITY_DETECTOR_HWID_ENUMERATION'), DETECTOR_DEFAULTS.hwid_enumeration),
      logdata_scanning: kind('SECURITY_DETECTOR_LOGDATA_SCANNING', optional(env, 'SECURITY_DETECTOR_LOGDATA_SCANNING'), DETECTOR_DEFAULTS.logdata_scanning),
      tenant_probing: kind('SECURITY_DETECTOR_TENANT_PROBING', optional(env, 'SECURITY_DETECTOR_TENANT_PROBING'), DETECTOR_DEFAULTS.tenant_probing),
      traffic_spike: kind('SECURITY_DETECTOR_TRAFFIC_SPIKE', optional(env, 'SECURITY_DETECTOR_TRAFFIC_SPIKE'), DETECTOR_DEFAULTS.traffic_spike),
    },
  };
}

/** Distributed processes need every server; refuse to start half-configured. */
export function assertDistributedConfig(
  config: ServiceConfig,
  needs: { database?: boolean; nats?: boolean; redis?: boolean; s3?: boolean; downloadSecret?: boolean },
): void {
  const missing: string[] = [];
  if (needs.database && !config.databaseUrl) missing.push('DATABASE_URL');
  if (needs.nats && !config.natsUrl) missing.push('NATS_URL');
  if (needs.redis && !config.redisUrl) missing.push('REDIS_URL');
  if (needs.s3 && !config.s3) missing.push('S3_BUCKET (and S3_ENDPOINT, S3_* credentials)');
  if (needs.downloadSecret && !config.downloadLinkSecret) missing.push('DOWNLOAD_LINK_SECRET');
  if (missing.length) throw new ConfigError(`running as a separate app needs ${missing.join(', ')}`);
}
