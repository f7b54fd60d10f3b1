import { describe, expect, it } from '@jest/globals';
import { DEFAULT_METRIC_NAMES, metricNamesOf, METRIC_NAMES, METRIC_SOURCES, ServiceMetrics } from './metric-names.js';
import { MetricsToken, ServiceMetricsRegistry, sharedReading } from './metrics.js';

function lines(text: string): string[] {
  return text.split('\n');
}

describe('ServiceMetricsRegistry', () => {
  it('declares every metric a process exports, the defaults included, before any sample', async () => {
    const metrics = new ServiceMetricsRegistry();
    metrics.declare('admin');
    const text = await metrics.render();
    const typed = new Set(lines(text).flatMap((l) => (l.startsWith('# TYPE ') ? [l.split(' ')[2]] : [])));
    for (const name of metricNamesOf('admin')) expect([name, typed.has(name)]).toEqual([name, true]);
    expect(typed.has('fds_http_requests_total')).toBe(false); // the gateway's
  });

  it('renders cumulative histogram buckets, sum and count per label values', async () => {
    const metrics = new ServiceMetricsRegistry();
    const series = metrics.histogram(ServiceMetrics.natsRequestDuration).labels('firmware.update-check');
    series.observe(0.003);
    series.observe(0.02);
    series.observe(100);
    const text = await metrics.render();
    const name = 'fds_nats_request_duration_seconds';
    expect(lines(text)).toEqual(
      expect.arrayContaining([
        `# TYPE ${name} histogram`,
        `${name}_bucket{subject="firmware.update-check",le="0.005"} 1`,
        `${name}_bucket{subject="firmware.update-check",le="0.01"} 1`,
        `${name}_bucket{subject="firmware.update-check",le="0.025"} 2`,
        `${name}_bucket{subject="firmware.update-check",le="30"} 2`,
        `${name}_bucket{subject="firmware.update-check",le="+Inf"} 3`,
        `${name}_sum{subject="firmware.update-check"} 100.023`,
        `${name}_count{subject="firmware.update-check"} 3`,
      ]),
    );
  });

  it('counts per label values, and reads counters and gauges kept elsewhere at scrape time', async () => {
    const metrics = new ServiceMetricsRegistry();
    const runs = metrics.counter(ServiceMetrics.jobRuns);
    runs.labels('email', 'send', 'succeeded').inc();
    runs.labels('email', 'send', 'succeeded').inc(2);
    runs.labels('email', 'send', 'failed').inc();
    let dropped = 4;
    metrics.counter(ServiceMetrics.requestLogDropped).collect([], () => dropped);
    metrics.collected(ServiceMetrics.outboxBacklog).collect(['registry'], () => Promise.resolve(7));
    metrics.collected(ServiceMetrics.outboxOldestAge).collect(['registry'], () => Promise.reject(new Error('database down')));
    metrics.collected(ServiceMetrics.dbPoolConnections).collectMany('pool:registry', () => [
      [['registry', 'open'], 3],
      [['registry', 'max'], 10],
    ]);
    dropped = 5;
    const text = lines(await metrics.render());
    expect(text).toEqual(
      expect.arrayContaining([
        'fds_job_runs_total{queue="email",job="send",result="succeeded"} 3',
        'fds_job_runs_total{queue="email",job="send",result="failed"} 1',
        'fds_request_log_dropped_total 5',
        'fds_outbox_backlog{app="registry"} 7',
        'fds_db_pool_connections{app="registry",state="open"} 3',
        'fds_db_pool_connections{app="registry",state="max"} 10',
      ]),
    );
    // A reading that fails leaves its series out rather than reporting a false value.
    expect(text.some((l) => l.startsWith('fds_outbox_oldest_age_seconds{'))).toBe(false);
  });

  it('escapes label values', async () => {
    const metrics = new ServiceMetricsRegistry();
    metrics.collected(ServiceMetrics.buildInfo).set(['gateway', '1.0.0', 'a"b\\c'], 1);
    expect(await metrics.render()).toContain('fds_build_info{app="gateway",version="1.0.0",commit="a\\"b\\\\c"} 1');
  });
});

describe('metric names', () => {
  it('lists each name once, and every process exports the defaults, build info and readiness', () => {
    expect(new Set(METRIC_NAMES).size).toBe(METRIC_NAMES.length);
    for (const source of METRIC_SOURCES) {
      const names = metricNamesOf(source);
      expect(names).toEqual(expect.arrayContaining([...DEFAULT_METRIC_NAMES, 'fds_build_info', 'fds_up', 'fds_nats_request_duration_seconds']));
    }
    expect(metricNamesOf('firmware-update-check')).not.toContain('fds_outbox_backlog');
    expect(metricNamesOf('gateway')).not.toContain('fds_db_pool_connections');
  });
});

describe('MetricsToken', () => {
  it('accepts the token only, and nothing when none is set', () => {
    const token = new MetricsToken('s3cret');
    expect(token.matches(MetricsToken.bearerOf('Bearer s3cret'))).toBe(true);
    expect(token.matches(MetricsToken.bearerOf('bearer s3cret'))).toBe(true);
    expect(token.matches(MetricsToken.bearerOf('Bearer s3cret2'))).toBe(false);
    expect(token.matches(MetricsToken.bearerOf('Basic s3cret'))).toBe(false);
    expect(token.matches(MetricsToken.bearerOf(undefined))).toBe(false);
    expect(new MetricsToken(null).matches('anything')).toBe(false);
  });
});

describe('sharedReading', () => {
  it('reads once for calls close together', async () => {
    let reads = 0;
    const read = sharedReading(() => Promise.resolve(++reads), 60_000);
    expect(await Promise.all([read(), read()])).toEqual([1, 1]);
    expect(reads).toBe(1);
  });
});
