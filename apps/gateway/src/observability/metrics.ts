import { Injectable } from '@nestjs/common';
import { DURATION_BUCKETS, processMetrics, ServiceMetrics } from '@app/infra';

const BUCKETS = DURATION_BUCKETS;

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

/**
 * Prometheus text exposition of the gateway's request metrics (kept here, without a label
 * string built per request), followed by the process's registry (libs/infra metrics.ts):
 * prom-client's process and Node.js metrics, build info, readiness, bus requests, request log.
 */
@Injectable()
export class GatewayMetrics {
  constructor() {
    processMetrics.declare('gateway', [ServiceMetrics.httpRequests, ServiceMetrics.httpRequestDuration]);
  }

  /** Request counts by route label, then method, then status (no label string built per request). */
  private readonly requests = new Map<string, Map<string, Map<number, number>>>();
  /** Durations by route label, then method. */
  private readonly durations = new Map<string, Map<string, Histogram>>();
  private readonly bytes = { in: 0, out: 0 };
  private readonly gauges = new Map<string, () => number>();

  /** Escaped route label per route pattern (a handful of patterns; escaped once, not per request). */
  private readonly routeLabels = new Map<string, string>();

  observe(method: string, route: string, status: number, seconds: number, bytesIn: number, bytesOut: number): void {
    let routeLabel = this.routeLabels.get(route);
    if (routeLabel === undefined) {
      routeLabel = `route="${escape(route)}"`;
      if (this.routeLabels.size < 10_000) this.routeLabels.set(route, routeLabel);
    }
    let byMethod = this.requests.get(routeLabel);
    if (!byMethod) this.requests.set(routeLabel, (byMethod = new Map<string, Map<number, number>>()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map<number, number>()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    let byMethodDurations = this.durations.get(routeLabel);
    if (!byMethodDurations) this.durations.set(routeLabel, (byMethodDurations = new Map<string, Histogram>()));
    let histogram = byMethodDurations.get(method);
    if (!histogram) {
      histogram = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
      byMethodDurations.set(method, histogram);
    }
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]) histogram.counts[i]++;
    histogram.sum += seconds;
    histogram.count++;
    this.bytes.in += bytesIn;
    this.bytes.out += bytesOut;
  }

  /** A gauge read at scrape time, in the gateway's own part (`fds_app_up{app="logdata"}`, kept for existing dashboards). */
  gauge(nameWithLabels: string, read: () => number): void {
    this.gauges.set(nameWithLabels, read);
  }

  async render(): Promise<string> {
    return this.renderOwn() + (await processMetrics.render()) + '\n';
  }

  private renderOwn(): string {
    const lines: string[] = [];
    lines.push('# HELP fds_http_requests_total HTTP requests by method, route pattern and status.', '# TYPE fds_http_requests_total counter');
    for (const [routeLabel, byMethod] of this.requests) {
      for (const [method, byStatus] of byMethod) {
        for (const [status, value] of byStatus) lines.push(`fds_http_requests_total{method="${escape(method)}",${routeLabel},status="${status}"} ${value}`);
      }
    }
    lines.push('# HELP fds_http_request_duration_seconds Time to answer, by route pattern and method.', '# TYPE fds_http_request_duration_seconds histogram');
    for (const [routeLabel, byMethod] of this.durations) {
      for (const [method, h] of byMethod) {
        const labels = `${routeLabel},method="${escape(method)}"`;
        BUCKETS.forEach((le, i) => lines.push(`fds_http_request_duration_seconds_bucket{${labels},le="${le}"} ${h.counts[i]}`));
        lines.push(`fds_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
        lines.push(`fds_http_request_duration_seconds_sum{${labels}} ${h.sum}`, `fds_http_request_duration_seconds_count{${labels}} ${h.count}`);
      }
    }
    lines.push('# TYPE fds_http_received_bytes_total counter', `fds_http_received_bytes_total ${this.bytes.in}`);
    lines.push('# TYPE fds_http_sent_bytes_total counter', `fds_http_sent_bytes_total ${this.bytes.out}`);
    // process_resident_memory_bytes comes from prom-client now (same name and meaning).
    const memory = process.memoryUsage();
    lines.push('# TYPE nodejs_heap_used_bytes gauge', `nodejs_heap_used_bytes ${memory.heapUsed}`);
    lines.push('# TYPE process_uptime_seconds gauge', `process_uptime_seconds ${Math.round(process.uptime())}`);
    const seen = new Set<string>();
    for (const [name, read] of this.gauges) {
      const base = name.split('{')[0];
      if (!seen.has(base)) {
        lines.push(`# TYPE ${base} gauge`);
        seen.add(base);
      }
      lines.push(`${name} ${read()}`);
    }
    return lines.join('\n') + '\n';
  }
}

function escape(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}
