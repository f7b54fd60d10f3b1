import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { type MetricDefinition, type MetricSource, SERVICE_METRICS, ServiceMetrics } from './metric-names.js';

/**
 * The process's Prometheus metrics, in one registry: prom-client's standard process and Node.js
 * metrics, and the service's own (metric-names.ts). The service's are small hand-made
 * collectors: a series is looked up once by its label values and then costs an addition per
 * observation (prom-client's own metrics hash their label object on every call, which the
 * update check's path would pay per request). Served by each app's health listener and by the
 * gateway's /metrics (docs/operations.md "Probes and metrics").
 */

/** Seconds buckets of the duration histograms (the gateway's request histogram uses the same). */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Jobs run from milliseconds (a mail) to many minutes (a backup). */
export const JOB_DURATION_BUCKETS: readonly number[] = [0.05, 0.25, 1, 5, 15, 60, 300, 900, 3600];

/** Series per metric at most: a label value that is not bounded stops adding series there. */
const MAX_SERIES = 1_000;

interface PromValue {
  readonly value: number;
  readonly labels: Record<string, string | number>;
  readonly metricName?: string;
}

/** What prom-client's Registry needs of a metric (registerMetric; it formats the text). */
interface PromMetric {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly aggregator: string;
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: PromValue[] }>;
  reset(): void;
}

abstract class ServiceMetric<S> implements PromMetric {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly aggregator = 'sum';
  protected readonly series = new Map<string, { readonly labels: Record<string, string>; readonly state: S }>();

  constructor(protected readonly definition: MetricDefinition) {
    this.name = definition.name;
    this.help = definition.help;
    this.type = definition.type;
  }

  /** The series of these label values (in the definition's order), made on first use. */
  protected seriesOf(values: readonly string[], make: () => S): S {
    const key = values.length === 1 ? values[0] : values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      if (values.length !== this.definition.labels.length) throw new Error(`${this.name} takes labels ${this.definition.labels.join(', ')}`);
      entry = { labels: Object.fromEntries(this.definition.labels.map((label, i) => [label, values[i]])), state: make() };
      if (this.series.size < MAX_SERIES) this.series.set(key, entry);
    }
    return entry.state;
  }

  protected abstract values(): Promise<PromValue[]> | PromValue[];

  async get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: await this.values() };
  }

  reset(): void {
    this.series.clear();
  }
}

export interface HistogramSeries {
  observe(seconds: number): void;
}

interface HistogramState {
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A histogram with fixed buckets: `histogram.labels('a').observe(seconds)`. */
export class Histogram extends ServiceMetric<HistogramState> {
  constructor(
    definition: MetricDefinition,
    private readonly buckets: readonly number[],
  ) {
    super(definition);
  }

  labels(...values: string[]): HistogramSeries {
    const buckets = this.buckets;
    const state = this.seriesOf(values, () => ({ counts: new Float64Array(buckets.length), sum: 0, count: 0 }));
    return {
      observe(seconds: number): void {
        let i = 0;
        while (i < buckets.length && seconds > buckets[i]) i++;
        if (i < buckets.length) state.counts[i]++;
        state.sum += seconds;
        state.count++;
      },
    };
  }

  protected values(): PromValue[] {
    const values: PromValue[] = [];
    for (const { labels, state } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += state.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: state.count });
      values.push({ metricName: `${this.name}_sum`, labels, value: state.sum });
      values.push({ metricName: `${this.name}_count`, labels, value: state.count });
    }
    return values;
  }
}

/** A figure read when scraped (one reader per series), or several series from one reading. */
export type Reading = number | Promise<number>;
/** Several series at once: label values (in the definition's order) and the figure. */
export type SeriesReading = ReadonlyArray<readonly [readonly string[], number]>;

/**
 * Gauges (and counters kept elsewhere) read at scrape time. A reader that fails leaves its
 * series out of that scrape (a missing series, not a false 0).
 */
export class Collected extends ServiceMetric<{ read: () => Reading }> {
  private readonly groups = new Map<string, () => Promise<SeriesReading> | SeriesReading>();

  /** Reads the series of these label values from `read` (a later call for the same labels replaces it). */
  collect(values: readonly string[], read: () => Reading): void {
    const key = values.join('\u0000');
    this.series.delete(key);
    this.seriesOf(values, () => ({ read }));
  }

  /** Reads several series with one call (e.g. one query), under `key` (a later call with the same key replaces it). */
  collectMany(key: string, read: () => Promise<SeriesReading> | SeriesReading): void {
    this.groups.set(key, read);
  }

  /** A fixed figure. */
  set(values: readonly string[], value: number): void {
    this.collect(values, () => value);
  }

  protected async values(): Promise<PromValue[]> {
    const single = await Promise.all(
      [...this.series.values()].map(async ({ labels, state }) => {
        try {
          return [{ labels, value: await state.read() }];
        } catch {
          return [];
        }
      }),
    );
    const grouped = await Promise.all(
      [...this.groups.values()].map(async (read) => {
        try {
          return (await read()).map(([values, value]) => ({
            labels: Object.fromEntries(this.definition.labels.map((label, i) => [label, values[i]])),
            value,
          }));
        } catch {
          return [];
        }
      }),
    );
    return [...single.flat(), ...grouped.flat()];
  }

  override reset(): void {
    super.reset();
    this.groups.clear();
  }
}

export interface CounterSeries {
  inc(by?: number): void;
}

/**
 * A counter: `counter.labels('a', 'b').inc()` (keep the series where it is used often), or,
 * for a count kept elsewhere, read at scrape time like a gauge (`collect`).
 */
export class Counter extends Collected {
  private readonly kept = new Map<string, CounterSeries>();

  labels(...values: string[]): CounterSeries {
    const key = values.join('\u0000');
    let series = this.kept.get(key);
    if (!series) {
      const state = { value: 0 };
      series = { inc: (by = 1) => void (state.value += by) };
      this.collect(values, () => state.value);
      if (this.kept.size < MAX_SERIES) this.kept.set(key, series);
    }
    return series;
  }

  override reset(): void {
    super.reset();
    this.kept.clear();
  }
}

/** Every metric of the process, by kind, made from its definition on first use. */
export class ServiceMetricsRegistry {
  readonly registry = new Registry();
  private readonly made = new Map<string, ServiceMetric<unknown>>();
  private defaultsCollected = false;

  /** Registers prom-client's process and Node.js metrics (once per process). */
  collectDefaults(): void {
    if (this.defaultsCollected) return;
    this.defaultsCollected = true;
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Makes every metric `source` exports, so each has its `# TYPE` line before its first sample;
   * `except`: those the caller renders itself (the gateway's request metrics).
   */
  declare(source: MetricSource, except: readonly MetricDefinition[] = []): void {
    this.collectDefaults();
    for (const definition of SERVICE_METRICS) {
      if (!definition.exportedBy.includes(source) || except.includes(definition)) continue;
      if (definition.type === 'histogram') this.histogram(definition);
      else if (definition.type === 'counter') this.counter(definition);
      else this.collected(definition);
    }
  }

  counter(definition: MetricDefinition): Counter {
    return this.make(definition, () => new Counter(definition));
  }

  histogram(definition: MetricDefinition): Histogram {
    const buckets = definition === ServiceMetrics.jobDuration ? JOB_DURATION_BUCKETS : DURATION_BUCKETS;
    return this.make(definition, () => new Histogram(definition, buckets));
  }

  /** A gauge read at scrape time. */
  collected(definition: MetricDefinition): Collected {
    return this.make(definition, () => new Collected(definition));
  }

  /** The Prometheus text of every metric (registry order: the defaults, then the service's). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** For tests: forget the service's series (the defaults stay). */
  resetSeries(): void {
    for (const metric of this.made.values()) metric.reset();
  }

  private make<M extends ServiceMetric<unknown>>(definition: MetricDefinition, create: () => M): M {
    let metric = this.made.get(definition.name) as M | undefined;
    if (!metric) {
      metric = create();
      this.made.set(definition.name, metric);
      this.registry.registerMetric(metric as never);
    }
    return metric;
  }
}

/** The process's metrics (one registry per process; in standalone mode every app shares it). */
export const processMetrics = new ServiceMetricsRegistry();

/** Content type of the Prometheus text format. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The version (package.json of the working directory, as in the image) and commit (BUILD_COMMIT) this process runs. */
export function buildVersion(commit: string | null): { version: string; commit: string } {
  let version = 'unknown';
  try {
    version = String((JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    // no package.json where the process runs: the version stays unknown
  }
  return { version, commit: commit ?? 'unknown' };
}

/** Sets `fds_build_info{app,version,commit} 1` and `fds_up{app}` read from `ready` at each scrape. */
export function registerAppMetrics(app: string, commit: string | null, ready: () => boolean | Promise<boolean>): void {
  const { version } = buildVersion(commit);
  processMetrics.collected(ServiceMetrics.buildInfo).set([app, version, commit ?? 'unknown'], 1);
  processMetrics.collected(ServiceMetrics.up).collect([app], async () => ((await ready()) ? 1 : 0));
}

/**
 * METRICS_TOKEN, compared in constant time (both sides hashed to the same length first): the
 * gateway's /metrics and every health listener's.
 */
export class MetricsToken {
  private readonly hash: Buffer | null;

  constructor(token: string | null) {
    this.hash = token ? sha256(token) : null;
  }

  /** Whether `Authorization: Bearer <token>` carries the token (never when none is set). */
  matches(bearer: string | null | undefined): boolean {
    return !!bearer && this.hash !== null && timingSafeEqual(sha256(bearer), this.hash);
  }

  /** The bearer of an Authorization header value, if it is one. */
  static bearerOf(authorization: string | undefined): string | null {
    const match = /^Bearer +([^\s]+) *$/i.exec(authorization ?? '');
    return match ? match[1] : null;
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

const natsRequestSeries = new Map<string, { readonly duration: HistogramSeries; readonly errors: CounterSeries }>();

/** The request metrics of one message subject (a declared pattern: a bounded set), looked up once per subject. */
export function natsRequestMetrics(subject: string): { readonly duration: HistogramSeries; readonly errors: CounterSeries } {
  let series = natsRequestSeries.get(subject);
  if (!series) {
    series = {
      duration: processMetrics.histogram(ServiceMetrics.natsRequestDuration).labels(subject),
      errors: processMetrics.counter(ServiceMetrics.natsRequestErrors).labels(subject),
    };
    natsRequestSeries.set(subject, series);
  }
  return series;
}

/**
 * One reading shared by the series a scrape reads together (e.g. two gauges from one query):
 * calls within `ms` of the first get the same promise.
 */
export function sharedReading<T>(read: () => Promise<T>, ms = 1_000): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= ms) last = { at: now, value: read() };
    return last.value;
  };
}
