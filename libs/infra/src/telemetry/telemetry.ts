import { context, INVALID_SPAN_CONTEXT, propagation, ProxyTracerProvider, trace, type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';

/**
 * OpenTelemetry is off unless OTEL_* variables are set (docs/operations.md "Observability"). When
 * on, the NodeSDK exports spans over OTLP/HTTP; trace context crosses the bus in message headers,
 * so one request's trace spans the gateway and the app that answered it.
 */
let started = false;

export async function startTelemetry(serviceName: string, enabled: boolean): Promise<void> {
  if (!enabled || started) return;
  started = true;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  const sdk = new NodeSDK({ traceExporter: new OTLPTraceExporter() });
  sdk.start();
  const stop = () => void sdk.shutdown().catch(() => undefined);
  process.once('SIGTERM', stop);
  process.once('beforeExit', stop);
}

export const tracer = () => trace.getTracer('firmware-service');

const NO_PROVIDER = new ProxyTracerProvider().getDelegate();
let recording = false;

/**
 * Whether a tracer provider is registered (startTelemetry, or a test's). When none is (the
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
  const parent = headers ? propagation.extract(context.active(), headers) : context.active();
  return tracer().startActiveSpan(name, { kind }, parent, async (span): Promise<Awaited<R>> => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Runs `fn` in a client span (a message being sent) so its headers carry this span as parent. */
export function withClientSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn();
  return tracer().startActiveSpan(name, { kind: SpanKind.CLIENT }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}
