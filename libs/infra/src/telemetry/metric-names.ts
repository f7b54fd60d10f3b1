/**
 * Every Prometheus metric the service exports, in one list: the apps register theirs from it
 * (metrics.ts), and the Kubernetes tests compare alert and dashboard expressions with it.
 * docs/operations.md "Probes and metrics" explains them.
 */

/** A process that serves `/metrics`: the gateway, a backend app, or the firmware app's update-check role. */
export type MetricSource = 'gateway' | 'firmware' | 'firmware-update-check' | 'logdata' | 'registry' | 'identity' | 'admin' | 'worker';

export const METRIC_SOURCES: readonly MetricSource[] = ['gateway', 'firmware', 'firmware-update-check', 'logdata', 'registry', 'identity', 'admin', 'worker'];

const EVERY: readonly MetricSource[] = METRIC_SOURCES;
/** The processes that own tables (all but the gateway; the update-check role reads the firmware schema). */
const WITH_DATABASE: readonly MetricSource[] = METRIC_SOURCES.filter((source) => source !== 'gateway');
/** The apps whose writes go through an outbox relayed to the admin app (not the update-check role). */
const WITH_OUTBOX: readonly MetricSource[] = ['firmware', 'registry', 'identity'];
/** The apps that run background jobs. */
const WITH_JOBS: readonly MetricSource[] = ['admin', 'worker'];

export interface MetricDefinition {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly help: string;
  readonly labels: readonly string[];
  /** The processes whose `/metrics` has it (its `# TYPE` line at least, from start-up). */
  readonly exportedBy: readonly MetricSource[];
}

function metric<N extends string>(
  name: N,
  type: MetricDefinition['type'],
  labels: readonly string[],
  exportedBy: readonly MetricSource[],
  help: string,
): MetricDefinition & { readonly name: N } {
  return { name, type, labels, exportedBy, help };
}

/** The service's own metrics (`fds_*`). */
export const ServiceMetrics = {
  buildInfo: metric('fds_build_info', 'gauge', ['app', 'version', 'commit'], EVERY, 'Always 1; the version and commit this process runs.'),
  up: metric(
    'fds_up',
    'gauge',
    ['app'],
    EVERY,
    'Whether the app is ready (1) or not (0). Each process reports itself; the gateway also reports each backend app by its last health answer.',
  ),
  httpRequests: metric('fds_http_requests_total', 'counter', ['route', 'method', 'status'], ['gateway'], 'HTTP requests by method, route pattern and status.'),
  httpRequestDuration: metric(
    'fds_http_request_duration_seconds',
    'histogram',
    ['route', 'method'],
    ['gateway'],
    'Time to answer, by route pattern and method.',
  ),
  outboxBacklog: metric('fds_outbox_backlog', 'gauge', ['app'], WITH_OUTBOX, 'Outbox entries not yet delivered to the admin app.'),
  outboxOldestAge: metric('fds_outbox_oldest_age_seconds', 'gauge', ['app'], WITH_OUTBOX, 'Age of the oldest undelivered outbox entry (0 when empty).'),
  jobQueueDepth: metric('fds_job_queue_depth', 'gauge', ['queue', 'state'], WITH_JOBS, 'Jobs per queue and state (waiting, delayed, active, failed).'),
  jobRuns: metric(
    'fds_job_runs_total',
    'counter',
    ['queue', 'job', 'result'],
    WITH_JOBS,
    'Job runs (tries) this process finished, by result (succeeded, failed).',
  ),
  jobDuration: metric('fds_job_duration_seconds', 'histogram', ['queue', 'job'], WITH_JOBS, 'Time a job run took in this process.'),
  backupLastSuccess: metric(
    'fds_backup_last_success_timestamp_seconds',
    'gauge',
    [],
    ['admin'],
    'When the newest successful backup finished (Unix seconds; 0 when there is none).',
  ),
  natsRequestDuration: metric(
    'fds_nats_request_duration_seconds',
    'histogram',
    ['subject'],
    EVERY,
    'Time a request over the message bus took to be answered, by subject.',
  ),
  natsRequestErrors: metric(
    'fds_nats_request_errors_total',
    'counter',
    ['subject'],
    EVERY,
    'Requests over the message bus that failed (no answer, timeout), by subject.',
  ),
  dbPoolConnections: metric(
    'fds_db_pool_connections',
    'gauge',
    ['app', 'state'],
    WITH_DATABASE,
    'Database pool connections by state (total, idle, waiting clients, max).',
  ),
  requestLogBacklog: metric('fds_request_log_backlog', 'gauge', [], ['gateway'], 'Request-log entries waiting to be sent to the logdata app.'),
  requestLogDropped: metric('fds_request_log_dropped_total', 'counter', [], ['gateway'], 'Request-log entries dropped because the backlog was full.'),
  signingKeyExpiry: metric(
    'fds_signing_key_expiry_timestamp_seconds',
    'gauge',
    ['use'],
    [],
    'When a signing key expires (Unix seconds), for keys that have an expiry.',
  ),
} as const;

export const SERVICE_METRICS: readonly MetricDefinition[] = Object.values(ServiceMetrics);

/**
 * The standard process and Node.js metrics every process exports (prom-client's
 * collectDefaultMetrics, no prefix; the process_*_fds ones exist on Linux only).
 */
export const DEFAULT_METRIC_NAMES: readonly string[] = [
  'process_cpu_user_seconds_total',
  'process_cpu_system_seconds_total',
  'process_cpu_seconds_total',
  'process_start_time_seconds',
  'process_resident_memory_bytes',
  'process_virtual_memory_bytes',
  'process_heap_bytes',
  'process_open_fds',
  'process_max_fds',
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_min_seconds',
  'nodejs_eventloop_lag_max_seconds',
  'nodejs_eventloop_lag_mean_seconds',
  'nodejs_eventloop_lag_stddev_seconds',
  'nodejs_eventloop_lag_p50_seconds',
  'nodejs_eventloop_lag_p90_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
  'nodejs_heap_size_total_bytes',
  'nodejs_heap_size_used_bytes',
  'nodejs_external_memory_bytes',
  'nodejs_heap_space_size_total_bytes',
  'nodejs_heap_space_size_used_bytes',
  'nodejs_heap_space_size_available_bytes',
  'nodejs_version_info',
  'nodejs_gc_duration_seconds',
];

/**
 * The gateway's metrics from before this list, still exported with the same text:
 * `fds_app_up{app}` (use `fds_up`), `fds_request_log_pending` and `fds_request_log_dropped`
 * (use `fds_request_log_backlog`, `fds_request_log_dropped_total`), bytes in and out, heap and uptime.
 */
export const GATEWAY_LEGACY_METRIC_NAMES: readonly string[] = [
  'fds_app_up',
  'fds_request_log_pending',
  'fds_request_log_dropped',
  'fds_http_received_bytes_total',
  'fds_http_sent_bytes_total',
  'nodejs_heap_used_bytes',
  'process_uptime_seconds',
];

/** Every metric name (without histogram suffixes) a process of the service may export. */
export const METRIC_NAMES: readonly string[] = [...DEFAULT_METRIC_NAMES, ...SERVICE_METRICS.map((m) => m.name), ...GATEWAY_LEGACY_METRIC_NAMES];

/** The metric names a given process exports from start-up (a `# TYPE` line each). */
export function metricNamesOf(source: MetricSource): string[] {
  const own = SERVICE_METRICS.filter((m) => m.exportedBy.includes(source)).map((m) => m.name);
  return [...DEFAULT_METRIC_NAMES, ...own, ...(source === 'gateway' ? GATEWAY_LEGACY_METRIC_NAMES : [])];
}
