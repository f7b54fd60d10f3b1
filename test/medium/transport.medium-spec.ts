import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, type INestMicroservice, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { type AppName, defineEvent, defineMessage, ErrorCode, ServiceError } from '@app/contracts';
import type { ServiceConfig } from '../../libs/infra/src/config/config.js';
import { configureLogging } from '../../libs/infra/src/logging/logger.js';
import { tracer } from '../../libs/infra/src/telemetry/telemetry.js';
import { closeMessageBuses, createMessageBus, createMessageServer, resetInProcessBroker } from '../../libs/infra/src/transport/create.js';
import { connectNats, writesPerTurn } from '../../libs/infra/src/transport/nats-connect.js';
import type { MessageBus } from '../../libs/infra/src/transport/message-bus.js';
import { ServiceErrorRpcFilter } from '../../libs/platform/src/rpc-exception.filter.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

// Unique subjects per run: parallel runs share the NATS server.
const RUN = `t${randomUUID().replaceAll('-', '').slice(0, 10)}`;

// Logs (e.g. the filter's "unhandled error") are collected instead of printed.
const logLines: Array<Record<string, unknown>> = [];
configureLogging({ level: 'debug', sink: (line) => logLines.push(JSON.parse(line) as Record<string, unknown>) });

// An in-memory tracer, so the tests can see which trace each span belongs to.
const spans = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }));
afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

interface Endpoint {
  ctx: { requestId: string };
  params: Record<string, string>;
  query: Record<string, string>;
  body: { items: string[]; at: Date | string };
}

interface Seen {
  echo: Record<string, number>;
  events: Record<string, number>;
}

function protocol(prefix: string) {
  const app = prefix; // the first segment of every pattern below
  return {
    app,
    echo: defineMessage<{ n: number }, { replica: string; n: number }>(`${prefix}.echo`),
    fail: defineMessage<Record<string, never>, never>(`${prefix}.fail`),
    crash: defineMessage<Record<string, never>, never>(`${prefix}.crash`),
    slow: defineMessage<{ ms: number }, string>(`${prefix}.slow`, { timeoutMs: 300 }),
    mutate: defineMessage<Endpoint, Endpoint>(`${prefix}.mutate`),
    trace: defineMessage<Record<string, never>, { traceparent: string | null; traceId: string | null }>(`${prefix}.trace`),
    crashInRequest: defineMessage<Endpoint, never>(`${prefix}.crash-in-request`),
    nobody: defineMessage<Record<string, never>, never>(`${prefix}nobody.ping`),
    served: defineMessage<{ n: number; fail?: 'service' | 'crash'; ctx?: { requestId: string } }, { replica: string; n: number }>(`${prefix}.served`),
    servedByReference: defineMessage<{ items: string[] }, { items: string[] }>(`${prefix}.served-by-reference`, { byReference: true }),
    queued: defineEvent<{ id: string }>(`${prefix}.queued`, 'queue'),
    broadcast: defineEvent<{ id: string }>(`${prefix}.broadcast`, 'broadcast'),
  };
}

type Protocol = ReturnType<typeof protocol>;

/** The controller of one replica of the test app. */
function appController(p: Protocol, replica: string, seen: Seen): Type<unknown> {
  @Controller()
  class TestAppController {
    @MessagePattern(p.echo.pattern)
    echo(@Payload() data: { n: number }) {
      seen.echo[replica] = (seen.echo[replica] ?? 0) + 1;
      return { replica, n: data.n };
    }

    @MessagePattern(p.fail.pattern)
    fail(): never {
      throw new ServiceError(ErrorCode.Conflict, 'x', { 'retry-after': '3' });
    }

    @MessagePattern(p.crash.pattern)
    crash(): never {
      throw new Error('boom');
    }

    @MessagePattern(p.slow.pattern)
    async slow(@Payload() data: { ms: number }) {
      await sleep(data.ms);
      return 'late';
    }

    @MessagePattern(p.mutate.pattern)
    mutate(@Payload() data: Endpoint) {
      data.body.items.push('added by handler');
      return data;
    }

    @MessagePattern(p.trace.pattern)
    traced(@Ctx() ctx: NatsContext) {
      const headers = ctx.getHeaders() as { get(key: string): string } | undefined;
      return { traceparent: headers?.get('traceparent') || null, traceId: trace.getActiveSpan()?.spanContext().traceId ?? null };
    }

    @MessagePattern(p.crashInRequest.pattern)
    async crashInRequest(): Promise<never> {
      await sleep(1); // the error comes after an await: the request id must still reach the log line
      throw new Error('boom in request');
    }

    @EventPattern<string>(p.queued.subject)
    queued(@Payload() data: { id: string }) {
      const key = `${replica}:${data.id}`;
      seen.events[key] = (seen.events[key] ?? 0) + 1;
    }
  }
  Object.defineProperty(TestAppController, 'name', { value: `TestAppController_${replica}` });
  return TestAppController;
}

/** A second app subscribing to the same queue event. */
function otherAppController(p: Protocol, seen: Seen): Type<unknown> {
  @Controller()
  class OtherAppController {
    @EventPattern<string>(p.queued.subject)
    queued(@Payload() data: { id: string }) {
      const key = `b1:${data.id}`;
      seen.events[key] = (seen.events[key] ?? 0) + 1;
    }
  }
  return OtherAppController;
}

async function startReplica(config: ServiceConfig, app: string, controller: Type<unknown>): Promise<INestMicroservice> {
  @Module({ controllers: [controller] })
  class TestAppModule {}
  const microservice = await NestFactory.createMicroservice(TestAppModule, {
    strategy: createMessageServer(config, app as AppName),
    logger: false,
  });
  microservice.useGlobalFilters(new ServiceErrorRpcFilter());
  await microservice.listen();
  return microservice;
}

describe.each([
  { adapter: 'nats', config: { natsUrl: NATS_URL } as ServiceConfig },
  { adapter: 'in-process', config: { natsUrl: null } as unknown as ServiceConfig },
])('message bus over $adapter', ({ adapter, config }) => {
  const p = protocol(`${RUN}${adapter === 'nats' ? 'n' : 'i'}`);
  const seen: Seen = { echo: {}, events: {} };
  const apps: INestMicroservice[] = [];
  let bus: MessageBus;
  let otherBus: MessageBus;

  beforeAll(async () => {
    if (adapter === 'in-process') resetInProcessBroker();
    // Two replicas of the app, and a second app handling the same queue event.
    apps.push(await startReplica(config, p.app, appController(p, 'a1', seen)));
    apps.push(await startReplica(config, p.app, appController(p, 'a2', seen)));
    apps.push(await startReplica(config, `${p.app}other`, otherAppController(p, seen)));
    bus = createMessageBus(config, 'gateway');
    otherBus = createMessageBus(config, 'admin');
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await closeMessageBuses();
  });

  it('answers a request and spreads the load over the replicas', async () => {
    const replies = await Promise.all(Array.from({ length: 40 }, (_, n) => bus.send(p.echo, { n })));
    expect(replies.map((r) => r.n)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(seen.echo.a1 ?? 0).toBeGreaterThan(0);
    expect(seen.echo.a2 ?? 0).toBeGreaterThan(0);
  });

  it("delivers the handler's ServiceError with its code, message and headers", async () => {
    const err = await rejection(bus.send(p.fail, {}));
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: ErrorCode.Conflict, message: 'x', headers: { 'retry-after': '3' } });
  });

  it('turns any other handler error into Internal', async () => {
    const err = await rejection(bus.send(p.crash, {}));
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: ErrorCode.Internal, message: 'internal error' });
  });

  it('answers Unavailable fast when no app handles the pattern', async () => {
    const started = Date.now();
    const err = await rejection(bus.send(p.nobody, {}));
    expect(Date.now() - started).toBeLessThan(2500);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: ErrorCode.Unavailable, message: `${p.app}nobody unavailable` });
  });

  it("answers Unavailable when the reply is slower than the message's timeout", async () => {
    const started = Date.now();
    const err = await rejection(bus.send(p.slow, { ms: 1500 }));
    expect(Date.now() - started).toBeLessThan(1400);
    expect(err).toMatchObject({ code: ErrorCode.Unavailable, message: `${p.app} did not answer in time` });
    expect(err).toBeInstanceOf(ServiceError);
  });

  it('lets the caller override the timeout', async () => {
    await expect(bus.send(p.slow, { ms: 400 }, { timeoutMs: 2000 })).resolves.toBe('late');
    const err = await rejection(bus.send(p.slow, { ms: 400 }, { timeoutMs: 100 }));
    expect(err).toMatchObject({ code: ErrorCode.Unavailable, message: `${p.app} did not answer in time` });
  });

  it('clones the payload both ways, as over the wire', async () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    const payload: Endpoint = { ctx: { requestId: 'r1' }, params: {}, query: {}, body: { items: ['a'], at } };
    const reply = await bus.send(p.mutate, payload);
    expect(payload.body.items).toEqual(['a']);
    expect(payload.body.at).toBe(at);
    expect(reply.body).toEqual({ items: ['a', 'added by handler'], at: '2026-01-02T03:04:05.000Z' });
  });

  it("logs a handler's unexpected error with the request id of the payload", async () => {
    const requestId = randomUUID();
    const before = logLines.length;
    const err = await rejection(bus.send(p.crashInRequest, { ctx: { requestId }, params: {}, query: {}, body: { items: [], at: '' } }));
    expect(err).toMatchObject({ code: ErrorCode.Internal, message: 'internal error' });
    expect(logLines.slice(before)).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'unhandled error in message handler', error: 'boom in request', request_id: requestId }),
    );
  });

  it("continues the sender's trace in the handler", async () => {
    spans.reset();
    const { reply, traceId } = await tracer().startActiveSpan('test-root', async (root) => {
      try {
        return { reply: await bus.send(p.trace, {}), traceId: root.spanContext().traceId };
      } finally {
        root.end();
      }
    });
    expect(reply.traceId).toBe(traceId);
    expect(reply.traceparent).toContain(traceId);
    await waitFor(() => spans.getFinishedSpans().some((s) => s.name === p.trace.pattern && s.kind === SpanKind.SERVER));
    const client = spans.getFinishedSpans().find((s) => s.name === p.trace.pattern && s.kind === SpanKind.CLIENT)!;
    const server = spans.getFinishedSpans().find((s) => s.name === p.trace.pattern && s.kind === SpanKind.SERVER)!;
    expect(client.spanContext().traceId).toBe(traceId);
    expect(server.spanContext().traceId).toBe(traceId);
    expect(server.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
  });

  it('serve(): answers directly, spreads over the replicas of the app, and errors cross as from a controller', async () => {
    const served: Record<string, number> = {};
    const handler = (replica: string) => (request: { n: number; fail?: 'service' | 'crash' }) => {
      served[replica] = (served[replica] ?? 0) + 1;
      if (request.fail === 'service') throw new ServiceError(ErrorCode.NotFound, 'no such thing', { 'x-hint': 'h' });
      if (request.fail === 'crash') throw new Error('boom');
      return { replica, n: request.n };
    };
    const replicaBuses = [createMessageBus(config, p.app as AppName), createMessageBus(config, p.app as AppName)];
    const stops = [replicaBuses[0].serve(p.served, handler('s1')), replicaBuses[1].serve(p.served, handler('s2'))];
    try {
      // Over NATS a subscription becomes active asynchronously: ask until answered.
      let first: { n: number } | undefined;
      for (let i = 0; i < 50 && !first; i++) first = await bus.send(p.served, { n: -1 }).catch(() => sleep(50).then(() => undefined));
      const replies = await Promise.all(Array.from({ length: 40 }, (_, n) => bus.send(p.served, { n })));
      expect(replies.map((r) => r.n)).toEqual(Array.from({ length: 40 }, (_, n) => n));
      expect(served.s1 ?? 0).toBeGreaterThan(0);
      expect(served.s2 ?? 0).toBeGreaterThan(0);
      const notFound = await rejection(bus.send(p.served, { n: 0, fail: 'service' }));
      expect(notFound).toBeInstanceOf(ServiceError);
      expect(notFound).toMatchObject({ code: ErrorCode.NotFound, message: 'no such thing', headers: { 'x-hint': 'h' } });
      const before = logLines.length;
      const crashed = await rejection(bus.send(p.served, { n: 0, fail: 'crash', ctx: { requestId: 'served-crash' } }));
      expect(crashed).toMatchObject({ code: ErrorCode.Internal, message: 'internal error' });
      expect(logLines.slice(before)).toContainEqual(expect.objectContaining({ msg: 'message handler failed', error: 'boom', request_id: 'served-crash' }));
    } finally {
      for (const stop of stops) stop();
    }
    await sleep(100);
    const gone = await rejection(bus.send(p.served, { n: 0 }));
    expect(gone).toMatchObject({ code: ErrorCode.Unavailable });
  });

  it('serve(): a byReference message is not copied in process; others are, as over the wire', async () => {
    const stop = otherBus.serve(p.servedByReference, (request) => {
      request.items.push('seen by handler');
      return request;
    });
    const copied = otherBus.serve(p.served, (request) => {
      (request as { n: number }).n = 99;
      return { replica: 'x', n: 1 };
    });
    try {
      let payload = { items: ['a'] };
      let reply: { items: string[] } | undefined;
      for (let i = 0; i < 50 && !reply; i++) {
        payload = { items: ['a'] };
        reply = await bus.send(p.servedByReference, payload).catch(() => sleep(50).then(() => undefined));
      }
      expect(reply!.items).toEqual(['a', 'seen by handler']);
      expect(reply === payload).toBe(adapter === 'in-process');
      const request = { n: 5 };
      await bus.send(p.served, request);
      expect(request.n).toBe(5);
    } finally {
      stop();
      copied();
    }
  });

  it('delivers a queue event once per app, whatever the number of replicas', async () => {
    const ids = Array.from({ length: 10 }, () => randomUUID());
    for (const id of ids) bus.emit(p.queued, { id });
    const count = (id: string, replicas: string[]) => replicas.reduce((sum, r) => sum + (seen.events[`${r}:${id}`] ?? 0), 0);
    await waitFor(() => ids.every((id) => count(id, ['a1', 'a2']) >= 1 && count(id, ['b1']) >= 1));
    await sleep(200); // a duplicate would have arrived by now
    for (const id of ids) {
      expect(count(id, ['a1', 'a2'])).toBe(1);
      expect(count(id, ['b1'])).toBe(1);
    }
  });

  it('delivers a broadcast event to every subscriber', async () => {
    const received: Record<string, string[]> = { first: [], second: [] };
    const stopFirst = bus.subscribe(p.broadcast, (e) => void received.first.push(e.id));
    const stopSecond = otherBus.subscribe(p.broadcast, async (e) => {
      await sleep(1);
      received.second.push(e.id);
    });
    try {
      // Over NATS a subscription becomes active asynchronously: emit until both have one.
      let last = '';
      await waitFor(() => {
        if (received.first.includes(last) && received.second.includes(last)) return true;
        last = randomUUID();
        otherBus.emit(p.broadcast, { id: last });
        return false;
      }, 5000);
      await sleep(100);
      for (const ids of Object.values(received)) expect(new Set(ids).size).toBe(ids.length); // each event once per subscriber
    } finally {
      stopFirst();
      stopSecond();
    }
    const after = randomUUID();
    bus.emit(p.broadcast, { id: after });
    await sleep(200);
    expect([...received.first, ...received.second]).not.toContain(after);
  });

  it('never throws from emit, and logs what could not be sent', async () => {
    const before = logLines.length;
    expect(() => bus.emit(p.queued, { id: 1n } as unknown as { id: string })).not.toThrow();
    await waitFor(() => logLines.slice(before).some((l) => l.msg === 'could not emit event' && l.subject === p.queued.subject));
  });
});

describe('message bus over NATS while NATS is down', () => {
  it('answers Unavailable instead of hanging', async () => {
    const bus = createMessageBus({ natsUrl: 'nats://127.0.0.1:1' } as ServiceConfig, 'gateway');
    const started = Date.now();
    const err = await rejection(bus.send(defineMessage(`${RUN}down.ping`), {}));
    expect(Date.now() - started).toBeLessThan(2500);
    expect(err).toMatchObject({ code: ErrorCode.Unavailable, message: `${RUN}down unavailable` });
    const before = logLines.length;
    expect(() => bus.emit(defineEvent(`${RUN}down.event`, 'queue'), {})).not.toThrow();
    await waitFor(() => logLines.slice(before).some((l) => l.msg === 'could not emit event' && l.subject === `${RUN}down.event`));
    await closeMessageBuses();
  });
});

describe('NATS writes of one event-loop turn', () => {
  /** Counts the socket writes (write or writev calls into the kernel) of a connection. */
  const countWrites = (nc: NatsConnection): { readonly count: number } => {
    const socket = (nc as unknown as { protocol: { transport: { socket: Socket } } }).protocol.transport.socket as Socket &
      Record<'_write' | '_writev', (...args: unknown[]) => void>;
    const counter = { count: 0 };
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method].bind(socket);
      socket[method] = (...args: unknown[]) => {
        counter.count++;
        original(...args);
      };
    }
    return counter;
  };

  /** 50 publishes, each from its own timer callback of the same timers phase; resolves when a subscriber has them all. */
  const publishFromTimers = async (publisher: NatsConnection, receiver: NatsConnection, subject: string): Promise<void> => {
    let received = 0;
    const all = new Promise<void>((resolve) =>
      receiver.subscribe(subject, {
        callback: () => {
          if (++received === 50) resolve();
        },
      }),
    );
    await receiver.flush();
    for (let i = 0; i < 50; i++) setTimeout(() => publisher.publish(subject, String(i)), 0);
    await all;
  };

  it('leave as one socket write, where the plain client writes once per publish', async () => {
    const receiver = await connectNats({ servers: [NATS_URL] });
    const plain = await connect({ servers: [NATS_URL] }); // the library's own transport, for comparison
    const batched = await connectNats({ servers: [NATS_URL] });
    try {
      expect(writesPerTurn(batched)).toBe(true);
      expect(writesPerTurn(plain)).toBe(false);
      const plainWrites = countWrites(plain);
      await publishFromTimers(plain, receiver, `${RUN}.turn.plain`);
      const batchedWrites = countWrites(batched);
      await publishFromTimers(batched, receiver, `${RUN}.turn.batched`);
      expect(plainWrites.count).toBeGreaterThanOrEqual(40);
      expect(batchedWrites.count).toBeLessThanOrEqual(2);
      // a lone request still gets its answer at once (no write waits for another turn's)
      receiver.subscribe(`${RUN}.turn.echo`, {
        callback: (_err, msg) => {
          msg.respond(msg.data);
        },
      });
      await receiver.flush();
      expect((await batched.request(`${RUN}.turn.echo`, 'ping', { timeout: 1000 })).string()).toBe('ping');
    } finally {
      await Promise.all([receiver.close(), plain.close(), batched.close()]);
    }
  });

  it("are held that way on the bus's and the app server's connections", async () => {
    const config = { natsUrl: NATS_URL } as ServiceConfig;
    const p = protocol(`${RUN}w`);
    const app = await startReplica(config, p.app, appController(p, 'w1', { echo: {}, events: {} }));
    const bus = createMessageBus(config, 'gateway');
    try {
      expect(await bus.send(p.echo, { n: 7 })).toMatchObject({ n: 7 });
      const busConnection = (bus as unknown as { client: NatsConnection }).client;
      const serverConnection = (app as unknown as { serverInstance: { unwrap<T>(): T } }).serverInstance.unwrap<NatsConnection>();
      expect(writesPerTurn(busConnection)).toBe(true);
      expect(writesPerTurn(serverConnection)).toBe(true);
    } finally {
      await app.close();
      await closeMessageBuses();
    }
  });
});
