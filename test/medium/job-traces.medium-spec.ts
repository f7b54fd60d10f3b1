import { afterAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Redis } from 'ioredis';
import { BullMqJobQueue, InProcessJobQueue, type JobQueue, MAIL_JOB, MAIL_QUEUE, type MailMessage, tracer } from '@app/infra';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `fds-trace-${randomBytes(4).toString('hex')}`;

// An in-memory tracer, so the test sees which trace each span belongs to.
const spans = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }));

afterAll(async () => {
  trace.disable();
  propagation.disable();
  context.disable();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ['in-process', () => new InProcessJobQueue()],
  ['bullmq', () => new BullMqJobQueue(REDIS_URL, { prefix: PREFIX })],
] as const)('a queued job continues the trace that queued it (%s)', (_kind, make) => {
  it("runs a login's mail job in the login request's trace, with the data as queued", async () => {
    const jobs: JobQueue = make();
    const queue = `${MAIL_QUEUE}-${randomBytes(3).toString('hex')}`;
    const seen: Array<{ data: MailMessage; traceId: string | undefined }> = [];
    jobs.process<MailMessage>(queue, async (job) => {
      seen.push({ data: job.data, traceId: trace.getActiveSpan()?.spanContext().traceId });
    });
    const mail: MailMessage = { to: 'a@example.com', subject: 'Your code', text: '123456', idempotencyKey: 'login:1' };
    // The gateway's request span, as request-pipeline.ts opens it for POST /auth/login.
    const request = await tracer().startActiveSpan('POST /auth/login', { kind: SpanKind.SERVER }, async (span) => {
      await jobs.add(queue, MAIL_JOB, mail, { jobId: mail.idempotencyKey });
      span.end();
      return span.spanContext();
    });
    const deadline = Date.now() + 10_000;
    while (!spans.getFinishedSpans().some((s) => s.name === `job ${queue}/${MAIL_JOB}`) && Date.now() < deadline) await sleep(20);
    await jobs.close();

    const job = spans.getFinishedSpans().find((s) => s.name === `job ${queue}/${MAIL_JOB}`)!;
    expect(job.kind).toBe(SpanKind.CONSUMER);
    expect(job.spanContext().traceId).toBe(request.traceId);
    expect(job.parentSpanContext?.spanId).toBe(request.spanId);
    expect(seen).toEqual([{ data: mail, traceId: request.traceId }]); // no trace member in the handler's data
  });

  it('starts a trace of its own for a job queued outside any span', async () => {
    const jobs: JobQueue = make();
    const queue = `plain-${randomBytes(3).toString('hex')}`;
    const seen: unknown[] = [];
    jobs.process(queue, async (job) => {
      seen.push(job.data);
    });
    await jobs.add(queue, 'plain', { n: 1 });
    const deadline = Date.now() + 10_000;
    while (!seen.length && Date.now() < deadline) await sleep(20);
    await jobs.close();
    expect(seen).toEqual([{ n: 1 }]);
    const job = spans.getFinishedSpans().find((s) => s.name === `job ${queue}/plain`)!;
    expect(job.parentSpanContext).toBeUndefined();
  });
});
