import { register } from 'node:module';
import {
  type Attributes,
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ProxyTracerProvider,
  trace,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
} from '@opentelemetry/api';
import { JsonLogger } from '../logging/logger.js';
import { tracingSettings, type TracingSettings } from './tracing-settings.js';

/**
 * OpenTelemetry tracing, off unless configured by the standard variables (tracing-settings.ts,
 * docs/configuration.md "Tracing"). When on, the NodeSDK exports spans as those variables say
 * (exporter, protocol, endpoint, sampler, resource), PostgreSQL, Redis and S3 calls get their
 * own spans (requireParentSpan: the pollers' idle queries make no traces of their own), and
 * trace context crosses the bus and the job queues in headers, so one request's trace spans the
 * gateway, the apps that answered it and the jobs it queued.
 *
 * Call it first in a process, before the database, Redis and S3 clients are imported: the
 * instrumentations patch those modules as they load (the ESM hook is registered for that).
 * Reads process.env (the SDK reads the same variables). Returns the settings, or null when
 * tracing is off (then nothing is loaded).
 */
let started: TracingSettings | null = null;

export async function startTracing(defaultServiceName: string): Promise<TracingSettings | null> {
  if (started) return started;
  const settings = tracingSettings(defaultServiceName, process.env);
  if (!settings) return null;
  started = settings;
  // ioredis is imported from ESM, which the CommonJS require hook does not see; pg and the AWS
  // SDK are patched through it. Only ioredis is hooked: the ESM hook wraps what it includes.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['ioredis'] } });
  const [{ NodeSDK }, { PgInstrumentation }, { IORedisInstrumentation }, { AwsInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-aws-sdk'),
  ]);
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    // Traces only: the metrics are Prometheus' (/metrics), the logs are JSON lines on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new AwsInstrumentation({ suppressInternalInstrumentation: true }),
    ],
  });
  sdk.start();
  const stop = () => void sdk.shutdown().catch(() => undefined);
  process.once('SIGTERM', stop);
  process.once('beforeExit', stop);
  return settings;
}

/** startTracing for an entry point: a bad tracing variable ends the process with a clear line. */
export async function startTracingAtEntry(serviceName: string): Promise<void> {
  try {
    await startTracing(serviceName);
  } catch (err) {
    new JsonLogger(serviceName).error(err instanceof Error ? err : new Error(String(err)), 'failed to start');
    process.exit(1);
  }
}

export const tracer = () => trace.getTracer('firmware-service');

const NO_PROVIDER = new ProxyTracerProvider().getDelegate();
let recording = false;

/**
 * Whether a tracer provider is registered (startTracing, or a test's). When none is (the
 * default), the helpers below skip the span and context plumbing entirely: the update check
 * pays for it on every request. Once true, stays true.
 */
export function tracingEnabled(): boolean {
  if (recording) return true;
  const provider = trace.getTracerProvider();
  recording = !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_PROVIDER;
  return recording;
}

/** The span handed to callbacks when tracing is off: records nothing. */
export const NON_RECORDING_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Headers carrying the active trace context (W3C traceparent), for a message about to be sent. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (!tracingEnabled()) return carrier;
  propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * Where a NATS message's span sits (OpenTelemetry's messaging conventions): a request sent
 * (CLIENT) and its handling (SERVER), an event published (PRODUCER) and its handling (CONSUMER).
 * The subject is the destination. The in-process bus is no messaging system: its spans carry none.
 */
export interface MessagingRole {
  readonly kind: SpanKind;
  readonly attributes: Attributes;
}

function natsRole(kind: SpanKind, operation: 'request' | 'publish' | 'process'): MessagingRole {
  return {
    kind,
    attributes: { 'messaging.system': 'nats', 'messaging.operation.type': operation === 'process' ? 'process' : 'send', 'messaging.operation.name': operation },
  };
}

export const NATS_SPANS = {
  request: natsRole(SpanKind.CLIENT, 'request'),
  reply: natsRole(SpanKind.SERVER, 'process'),
  publish: natsRole(SpanKind.PRODUCER, 'publish'),
  consume: natsRole(SpanKind.CONSUMER, 'process'),
} as const;

/**
 * Runs `fn` in a span that continues the trace found in `headers` (a received message).
 * Without tracing, `fn`'s own result (an immediate value stays immediate).
 */
export function withRemoteSpan<R>(
  name: string,
  headers: Record<string, string> | undefined,
  fn: (span: Span) => R,
  kind: SpanKind = SpanKind.SERVER,
): R | Promise<Awaited<R>> {
  if (!tracingEnabled()) return fn(NON_RECORDING_SPAN);
  return withReceivedSpan(name, headers, { kind, attributes: {} }, fn);
}

/** withRemoteSpan for a NATS message: its messaging role and attributes, the subject as destination. */
export function withReceivedSpan<R>(
  name: string,
  headers: Record<string, string> | undefined,
  role: MessagingRole,
  fn: (span: Span) => R,
): R | Promise<Awaited<R>> {
  if (!tracingEnabled()) return fn(NON_RECORDING_SPAN);
  const parent = headers ? propagation.extract(context.active(), headers) : context.active();
  return tracer().startActiveSpan(name, spanOptions(name, role), parent, (span) => endWith(span, fn));
}

/** Runs `fn` in a client span (a message being sent) so its headers carry this span as parent. */
export function withClientSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn();
  return withSendSpan(name, { kind: SpanKind.CLIENT, attributes: {} }, fn);
}

/** withClientSpan for a NATS message: a request (CLIENT) or a published event (PRODUCER). */
export function withSendSpan<T>(name: string, role: MessagingRole, fn: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn();
  return tracer().startActiveSpan(name, spanOptions(name, role), (span) => endWith(span, fn));
}

function spanOptions(name: string, role: MessagingRole): SpanOptions {
  return 'messaging.system' in role.attributes
    ? { kind: role.kind, attributes: { ...role.attributes, 'messaging.destination.name': name } }
    : { kind: role.kind, attributes: role.attributes };
}

/** Awaits `fn` in `span`, marks the span failed if `fn` throws, and ends it. */
async function endWith<R>(span: Span, fn: (span: Span) => R): Promise<Awaited<R>> {
  try {
    return await fn(span);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs `fn` (one mail handed to an SMTP server) in a client span. No OpenTelemetry
 * instrumentation covers nodemailer, so the span is made here, with the server and protocol
 * attributes of the general conventions; recipients and contents stay out (they carry codes).
 */
export function withSmtpSpan<T>(server: { readonly host: string; readonly port: number }, fn: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn();
  const attributes = { 'server.address': server.host, 'server.port': server.port, 'network.protocol.name': 'smtp', 'network.transport': 'tcp' };
  return withSendSpan('smtp send', { kind: SpanKind.CLIENT, attributes }, fn);
}
