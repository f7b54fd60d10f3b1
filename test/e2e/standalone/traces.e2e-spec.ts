import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { customerWithOwner, expectStatus } from '../support/auth.js';
import { productLine, updateCheckPath } from '../support/firmware.js';
import { startRuntime, type Runtime } from '../support/runtime.js';

/**
 * Traces an SRE can follow (docs/operations.md "Traces"), seen in the one standalone process
 * with an in-memory tracer in place of the OTLP exporter: HTTP spans named and described by
 * OpenTelemetry's HTTP conventions, and a login's mail job inside the login's trace.
 */

const spans = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }));

async function waitForSpan(match: (span: ReadableSpan) => boolean): Promise<ReadableSpan> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = spans.getFinishedSpans().find(match);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(
        `no such span among ${spans
          .getFinishedSpans()
          .map((s) => s.name)
          .join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('traces (standalone, in-memory tracer)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await startRuntime();
  });
  afterAll(async () => {
    await rt?.stop();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it('names HTTP spans `<METHOD> <route>` with the HTTP semantic-convention attributes', async () => {
    const res = await rt.http.get(updateCheckPath('nobody.example', productLine(), '1.0'));
    const requestId = res.header('x-request-id');
    const span = await waitForSpan((s) => s.kind === SpanKind.SERVER && s.attributes['http.request_id'] === requestId);
    const route = span.attributes['http.route'] as string;
    expect(route).toBe('/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}');
    expect(span.name).toBe(`GET ${route}`);
    expect(span.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': res.status });

    const unmatched = await rt.http.get('/no/such/route');
    const bare = await waitForSpan((s) => s.kind === SpanKind.SERVER && s.attributes['http.request_id'] === unmatched.header('x-request-id'));
    expect(bare.name).toBe('GET');
    expect(bare.attributes['http.route']).toBeUndefined();
    expect(bare.attributes['http.response.status_code']).toBe(404);
  });

  it("runs a login's mail job inside the login request's trace", async () => {
    const a = await customerWithOwner(rt);
    const res = expectStatus(await rt.http.post('/auth/login', { json: { email: a.ownerEmail } }), 202);
    const login = await waitForSpan((s) => s.kind === SpanKind.SERVER && s.attributes['http.request_id'] === res.header('x-request-id'));
    expect(login.name).toBe('POST /auth/login');
    const traceId = login.spanContext().traceId;
    const job = await waitForSpan((s) => s.kind === SpanKind.CONSUMER && s.name.startsWith('job email/') && s.spanContext().traceId === traceId);
    expect(job.parentSpanContext?.traceId).toBe(traceId);
  });
});
