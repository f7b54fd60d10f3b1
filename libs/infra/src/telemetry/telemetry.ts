import { context, propagation, trace, type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';

/**
 * OpenTelemetry is off unless OTEL_* variables are set (DECISIONS). When on, the NodeSDK
 * exports spans over OTLP/HTTP; trace context crosses the bus in message headers, so one
 * request's trace spans the gateway and the app that answered it.
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

/** Headers carrying the active trace context (W3C traceparent), for a message about to be sent. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Runs `fn` in a span that continues the trace found in `headers` (a received message). */
export async function withRemoteSpan<T>(name: string, headers: Record<string, string> | undefined, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = headers ? propagation.extract(context.active(), headers) : context.active();
  return tracer().startActiveSpan(name, { kind: SpanKind.SERVER }, parent, async (span) => {
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
export async function withClientSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
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
