import { ConfigError } from '../config/config.js';

/**
 * Whether and how a process traces, from the standard OpenTelemetry variables
 * (docs/configuration.md "Tracing"). Tracing is off unless a destination is configured:
 * `OTEL_TRACES_EXPORTER` names an exporter other than `none`, or an OTLP endpoint variable is
 * set (the exporter then defaults to `otlp`, as the specification says). Other `OTEL_*`
 * variables alone (a service name, resource attributes) switch nothing on.
 *
 * The values are checked here so a typo stops the process with a clear line; the SDK then
 * reads the same variables to build the exporter and sampler (it would only warn and fall back).
 */
export interface TracingSettings {
  readonly exporters: readonly TraceExporterName[];
  /** The OTLP protocol (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`). */
  readonly protocol: OtlpProtocol;
  /** Where OTLP spans go: `_TRACES_ENDPOINT` as is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces` (HTTP). */
  readonly endpoint: string;
  readonly sampler: TraceSamplerName;
  /** The ratio of the `traceidratio` samplers (`OTEL_TRACES_SAMPLER_ARG`, default 1). */
  readonly samplerRatio: number;
  /** `OTEL_SERVICE_NAME`, else `service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else the process's own name. */
  readonly serviceName: string;
}

export const TRACE_EXPORTERS = ['otlp', 'console'] as const;
export type TraceExporterName = (typeof TRACE_EXPORTERS)[number];
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];
export const TRACE_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

const DEFAULT_HTTP_ENDPOINT = 'http://localhost:4318';
const DEFAULT_GRPC_ENDPOINT = 'http://localhost:4317';

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  const lower = raw.toLowerCase();
  if (!(allowed as readonly string[]).includes(lower)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return lower as T;
}

/** The settings, or null when tracing is off. */
export function tracingSettings(defaultServiceName: string, env: NodeJS.ProcessEnv = process.env): TracingSettings | null {
  if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporters = traceExporters(env);
  if (exporters.length === 0) return null;
  const protocolVariable = value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = oneOf(protocolVariable, value(env, protocolVariable) ?? 'http/protobuf', OTLP_PROTOCOLS);
  const sampler = oneOf('OTEL_TRACES_SAMPLER', value(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on', TRACE_SAMPLERS);
  return {
    exporters,
    protocol,
    endpoint: otlpEndpoint(env, protocol),
    sampler,
    samplerRatio: samplerRatio(env, sampler),
    serviceName: value(env, 'OTEL_SERVICE_NAME') ?? resourceAttributes(env)['service.name'] ?? defaultServiceName,
  };
}

function traceExporters(env: NodeJS.ProcessEnv): TraceExporterName[] {
  const raw = value(env, 'OTEL_TRACES_EXPORTER');
  if (raw === undefined) {
    const endpointSet = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    return endpointSet ? ['otlp'] : [];
  }
  const names = [...new Set(raw.split(',').map((name) => name.trim().toLowerCase()))].filter(Boolean);
  if (names.length === 1 && names[0] === 'none') return [];
  return names.map((name) => oneOf('OTEL_TRACES_EXPORTER', name, TRACE_EXPORTERS));
}

function otlpEndpoint(env: NodeJS.ProcessEnv, protocol: OtlpProtocol): string {
  const traces = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const [name, raw] = traces ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces] : ['OTEL_EXPORTER_OTLP_ENDPOINT', base];
  if (raw !== undefined) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError(`${name} must be an absolute http or https URL, got "${raw}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an absolute http or https URL, got "${raw}"`);
  }
  // The signal-specific variable is used as is; the base one gets the signal's path over HTTP.
  if (traces) return traces;
  if (protocol === 'grpc') return base ?? DEFAULT_GRPC_ENDPOINT;
  return `${(base ?? DEFAULT_HTTP_ENDPOINT).replace(/\/+$/, '')}/v1/traces`;
}

function samplerRatio(env: NodeJS.ProcessEnv, sampler: TraceSamplerName): number {
  const raw = value(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (!sampler.endsWith('traceidratio') || raw === undefined) return 1;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${raw}"`);
  return ratio;
}

/** `OTEL_RESOURCE_ATTRIBUTES`: `key=value` pairs, comma-separated, values percent-encoded. */
export function resourceAttributes(env: NodeJS.ProcessEnv): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of (value(env, 'OTEL_RESOURCE_ATTRIBUTES') ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      attributes[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`OTEL_RESOURCE_ATTRIBUTES has a badly encoded value in "${pair}"`);
    }
  }
  return attributes;
}
