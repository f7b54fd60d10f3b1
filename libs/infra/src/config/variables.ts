/**
 * Every environment variable the service reads, with its default and a one-line meaning: the
 * list docs/configuration.md documents. test/medium/deploy-manifests.medium-spec.ts checks it
 * both ways against what config.ts reads, and checks the table of docs/configuration.md
 * against it (same variables, same order, same defaults), so none of the three drifts.
 *
 * `OTEL_*` stands for the standard OpenTelemetry variables, which tracing-settings.ts checks and
 * the OpenTelemetry SDK reads (docs/configuration.md "Tracing"). The `<NAME>_FILE` variants of
 * the secrets (SECRET_VARIABLES in config.ts) are described there too, not listed here.
 */
export interface ConfigVariable {
  readonly name: string;
  /** The default as docs/configuration.md writes it (without backticks). */
  readonly default: string;
  readonly meaning: string;
}

export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  { name: 'PORT', default: '8080', meaning: 'HTTP port of the gateway (standalone: of the whole service).' },
  { name: 'PUBLIC_URL', default: 'http://localhost:$PORT', meaning: 'Base address of the service: token issuer, links in mails, download links.' },
  {
    name: 'TRUSTED_PROXIES',
    default: 'unset: none',
    meaning: 'Comma-separated CIDR networks of the proxies in front of the gateway, whose X-Forwarded-For names the client.',
  },
  {
    name: 'DATA_DIR',
    default: './data',
    meaning: 'Embedded mode: database, files, mail outbox, download-link key and generated backup key; one process per directory.',
  },
  { name: 'OPERATOR_DOMAIN', default: 'operator.local', meaning: "The operator's admin customer, whose members are the service administrators." },
  { name: 'OPERATOR_ADMIN_EMAIL', default: 'unset', meaning: 'Invited as owner of the admin customer at start-up while it has none.' },
  { name: 'SANDBOX_DOMAIN', default: 'unset', meaning: 'Creates a sandbox customer with public tokens shown on /docs.' },
  { name: 'SMTP_URL', default: 'unset', meaning: 'SMTP server for mail; unset, mail is written to $DATA_DIR/outbox.' },
  { name: 'MAIL_FROM', default: 'no-reply@<host of PUBLIC_URL>', meaning: 'Sender address of mail.' },
  { name: 'METRICS_TOKEN', default: 'unset', meaning: 'Bearer token for GET /metrics.' },
  {
    name: 'HEALTH_PORT',
    default: 'unset: 9464 in a distributed app, none in standalone mode',
    meaning: "Port of a backend app's health listener: /livez, /readyz, /startupz and /metrics; 0: none.",
  },
  { name: 'BUILD_COMMIT', default: 'unset: unknown', meaning: 'The commit the running build was made from, shown in fds_build_info.' },
  { name: 'DATABASE_URL', default: 'unset: embedded PGlite under $DATA_DIR/db', meaning: 'PostgreSQL (15 or later); one schema per app.' },
  {
    name: 'DATABASE_POOL_SIZE',
    default: '10 (at most 100)',
    meaning: 'Connections of each app\'s PostgreSQL pool, per process (docs/operations.md "Running on Kubernetes": the formula).',
  },
  {
    name: 'EMBEDDED_DB_SHARED_BUFFERS_MB',
    default: '16 (1 to 1024)',
    meaning: "The embedded database's page cache (PostgreSQL shared_buffers) in MiB, resident in the process; beyond it pages come from the OS file cache.",
  },
  { name: 'NATS_URL', default: 'unset: in-process bus', meaning: 'NATS server(s), comma-separated.' },
  { name: 'REDIS_URL', default: 'unset: in-process job runner', meaning: "Redis for the job queues (noeviction) and the gateways' shared rate counts." },
  { name: 'S3_BUCKET', default: 'unset: files under $DATA_DIR/objects', meaning: 'Bucket of every file; setting it switches to S3.' },
  { name: 'S3_ENDPOINT', default: 'unset: AWS S3', meaning: 'Endpoint of an S3-compatible store.' },
  {
    name: 'S3_PUBLIC_ENDPOINT',
    default: 'unset: S3_ENDPOINT',
    meaning: 'Address of the store as devices and browsers reach it; pre-signed URLs are signed for it.',
  },
  { name: 'S3_REGION', default: 'us-east-1', meaning: 'Region of the bucket.' },
  { name: 'S3_ACCESS_KEY_ID', default: "unset: the AWS SDK's default credentials", meaning: 'Access key (with S3_SECRET_ACCESS_KEY).' },
  { name: 'S3_SECRET_ACCESS_KEY', default: 'unset', meaning: 'Secret key.' },
  { name: 'S3_FORCE_PATH_STYLE', default: 'false', meaning: 'Path-style bucket addressing (MinIO, most non-AWS stores).' },
  {
    name: 'DOWNLOAD_LINK_SECRET',
    default: 'unset: generated into $DATA_DIR/download-link.key',
    meaning: 'HMAC key of the 5-minute /dl links; the same on every gateway.',
  },
  { name: 'FIRMWARE_MAX_BYTES', default: '536870912 (512 MiB)', meaning: 'Largest firmware binary (at most 5368709120, 5 GiB); larger is 413.' },
  { name: 'CREDENTIAL_CACHE_SECONDS', default: '15 (at most 30)', meaning: 'How long a gateway trusts a cached credential status or customer lookup.' },
  { name: 'DOWNLOAD_RATE_PER_MINUTE', default: '120', meaning: '/dl downloads per client address per minute, per gateway process.' },
  { name: 'LOGIN_RATE_PER_IP_PER_HOUR', default: '100', meaning: 'POST /auth/login per client address per hour.' },
  { name: 'LOGIN_VERIFY_RATE_PER_IP_PER_HOUR', default: '100', meaning: 'Code verifications and magic-link confirmations per client address per hour.' },
  { name: 'LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR', default: '50', meaning: 'Code verifications and magic-link confirmations per email address per hour.' },
  {
    name: 'REFRESH_REUSE_GRACE_SECONDS',
    default: '0 (at most 60)',
    meaning: 'How long after a rotation the old refresh token is refused with 409 instead of ending the session.',
  },
  {
    name: 'DEVICE_REPORT_RATE_PER_MINUTE',
    default: '30',
    meaning: 'Device reports (POST /firmware/{domain}/reports/{hwid}) per client address per minute, over all gateways with REDIS_URL, else per process.',
  },
  {
    name: 'UPDATE_CHECK_RATE_PER_MINUTE',
    default: '300',
    meaning: 'Public update checks per client address per minute, over all gateways with REDIS_URL, else per process.',
  },
  {
    name: 'UPDATE_POLL_SECONDS',
    default: '3600 (60 to 604800)',
    meaning: 'Polling interval advised to devices (Poll-After, with jitter) for customers without poll_interval_seconds.',
  },
  {
    name: 'UPDATE_CHECK_BUSY_IN_FLIGHT',
    default: '512',
    meaning: "A gateway's update checks in flight past which Poll-After is lengthened (by the ratio, at most 8 times).",
  },
  {
    name: 'UPDATE_CHECK_BUSY_LAG_MS',
    default: '100',
    meaning: "A gateway's event-loop delay past which Poll-After is lengthened (by the ratio, at most 8 times).",
  },
  {
    name: 'SECURITY_DETECTOR_INTERVAL_SECONDS',
    default: '10',
    meaning: 'How often the security detectors read the request log (a repeating job of the admin app).',
  },
  {
    name: 'REQUEST_LOG_RETENTION_DAYS',
    default: '30',
    meaning: 'Days of request-log entries kept (whole daily partitions dropped); the daily usage counters are kept apart, longer.',
  },
  {
    name: 'HEALTH_SAMPLE_INTERVAL_SECONDS',
    default: '60',
    meaning: "How often each gateway samples every part's state (gateway, database, object store, each app) for the health history.",
  },
  {
    name: 'HEALTH_ROLLUP_INTERVAL_SECONDS',
    default: '3600',
    meaning: 'How often the admin app rolls the samples up into daily uptime (/health/history and the /health page lag by at most this).',
  },
  { name: 'SECURITY_DETECTOR_COOLDOWN_SECONDS', default: '900', meaning: 'Quiet time after which a detector finding opens a new episode (a new event).' },
  { name: 'SECURITY_DETECTOR_RATE_LIMITED', default: 'threshold=50,window=300s,severity=warn', meaning: '429 answers per client address.' },
  { name: 'SECURITY_DETECTOR_AUTH_FAILURES', default: 'threshold=20,window=300s,severity=warn', meaning: '401 answers per client address.' },
  {
    name: 'SECURITY_DETECTOR_HWID_ENUMERATION',
    default: 'threshold=100,window=300s,severity=critical',
    meaning: 'Distinct HW ids unknown to the registry in update checks per client address.',
  },
  {
    name: 'SECURITY_DETECTOR_LOGDATA_SCANNING',
    default: 'threshold=20,window=300s,severity=warn',
    meaning: 'Distinct log-file names answered 404 (GET, HEAD, meta) per client address.',
  },
  {
    name: 'SECURITY_DETECTOR_TENANT_PROBING',
    default: 'threshold=10,window=300s,severity=critical',
    meaning: 'Requests of one credential refused 404 customer not found (customer= naming a customer it may not act on).',
  },
  {
    name: 'SECURITY_DETECTOR_TRAFFIC_SPIKE',
    default: 'threshold=3000,window=60s,factor=5,baseline=1800s,severity=warn',
    meaning: 'Requests in the window against the baseline average, with a floor.',
  },
  {
    name: 'BACKUP_PUBLIC_KEY',
    default: 'unset: standalone generates $DATA_DIR/backup-secret.key',
    meaning:
      'age recipient (age1...) every backup archive is encrypted to; the secret half stays offline. Unset: standalone on the local backend makes its own key pair, otherwise backups are refused.',
  },
  { name: 'BACKUP_SCHEDULE', default: '24h', meaning: 'Interval of the scheduled backup (s, m, h or d suffix), or off.' },
  { name: 'BACKUP_KEEP', default: '7', meaning: 'Archives kept; after each backup older ones beyond this many are removed.' },
  { name: 'BACKUP_DIR', default: '$DATA_DIR/backups', meaning: 'Directory of the local backup backend.' },
  { name: 'BACKUP_S3_BUCKET', default: 'unset: the local backend', meaning: 'Off-site bucket for backup archives; setting it switches the backend to s3.' },
  { name: 'BACKUP_S3_ENDPOINT', default: 'unset: AWS S3', meaning: 'Endpoint of the off-site S3-compatible store.' },
  { name: 'BACKUP_S3_REGION', default: 'us-east-1', meaning: 'Region of the off-site bucket.' },
  { name: 'BACKUP_S3_ACCESS_KEY_ID', default: "unset: the AWS SDK's default credentials", meaning: 'Access key of the off-site bucket.' },
  { name: 'BACKUP_S3_SECRET_ACCESS_KEY', default: 'unset', meaning: 'Secret key of the off-site bucket.' },
  { name: 'BACKUP_S3_FORCE_PATH_STYLE', default: 'false', meaning: 'Path-style addressing for the off-site store.' },
  { name: 'LOG_LEVEL', default: 'info', meaning: 'debug, info, warn or error.' },
  {
    name: 'OTEL_*',
    default: 'unset: tracing off',
    meaning: 'Standard OpenTelemetry variables; tracing is on only when a destination is configured (see Tracing).',
  },
];
