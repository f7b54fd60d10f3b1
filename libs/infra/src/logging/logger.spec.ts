import { afterEach, describe, expect, it } from '@jest/globals';
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { configureLogging, JsonLogger, requestOfMessage } from './logger.js';

describe('JsonLogger', () => {
  let lines: Record<string, unknown>[] = [];
  configureLogging({ level: 'debug', sink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  afterEach(() => {
    lines = [];
  });

  it('writes one JSON object per line with ts, level, app, msg and the fields', () => {
    new JsonLogger('firmware').warn('disk low', { free_bytes: 12 });
    expect(lines).toEqual([{ ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'warn', app: 'firmware', msg: 'disk low', free_bytes: 12 }]);
  });

  it('keeps the fields of warn and log, and the context name Nest passes', () => {
    const logger = new JsonLogger('registry');
    logger.log('started', 'NestApplication');
    logger.warn('slow', { ms: 5 });
    logger.error('failed', { key: 'k' });
    expect(lines.map(({ ts: _ts, ...rest }) => rest)).toEqual([
      { level: 'info', app: 'registry', msg: 'started', context: 'NestApplication' },
      { level: 'warn', app: 'registry', msg: 'slow', ms: 5 },
      { level: 'error', app: 'registry', msg: 'failed', key: 'k' },
    ]);
  });

  it('keeps an error, its description and the fields given with it', () => {
    const boom = new Error('boom');
    new JsonLogger('gateway').error(boom, 'request failed', { method: 'PUT', route: '/logdata/{name}' });
    new JsonLogger('gateway').error(boom, 'no fields');
    expect(lines.map(({ ts: _ts, stack, ...rest }) => [rest, typeof stack])).toEqual([
      [{ level: 'error', app: 'gateway', msg: 'request failed', method: 'PUT', route: '/logdata/{name}', error: 'boom' }, 'string'],
      [{ level: 'error', app: 'gateway', msg: 'no fields', error: 'boom' }, 'string'],
    ]);
  });

  it("puts the request's id on every line of a logger bound to it, and on no other", async () => {
    const logger = new JsonLogger('logdata');
    const bound = logger.forRequest({ requestId: 'req-1' });
    await Promise.resolve(); // explicit, so no async context is needed to keep it
    bound.info('first');
    bound.child('transport').error(new Error('boom'), 'second');
    logger.info('unbound');
    expect(lines.map((l) => [l.app, l.msg, l.request_id])).toEqual([
      ['logdata', 'first', 'req-1'],
      ['transport', 'second', 'req-1'],
      ['logdata', 'unbound', undefined],
    ]);
  });

  it('stays unbound without a request id', () => {
    const logger = new JsonLogger('gateway');
    expect(logger.forRequest(undefined)).toBe(logger);
    expect(logger.forRequest({ requestId: '' })).toBe(logger);
  });

  it('finds the request of an endpoint message, and none in anything else', () => {
    expect(requestOfMessage({ ctx: { requestId: 'r-9' }, params: {} })).toEqual({ requestId: 'r-9' });
    for (const other of [null, 'text', 7, {}, { ctx: null }, { ctx: { requestId: 5 } }, { ctx: { requestId: '' } }]) {
      expect(requestOfMessage(other)).toBeUndefined();
    }
  });

  it("adds the active span's trace and span ids to every line, and nothing without a span", () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const span = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED };
      const logger = new JsonLogger('identity');
      context.with(trace.setSpanContext(ROOT_CONTEXT, span), () => logger.info('code sent'));
      logger.info('idle');
      expect(lines.map(({ ts: _ts, ...rest }) => rest)).toEqual([
        { level: 'info', app: 'identity', msg: 'code sent', trace_id: span.traceId, span_id: span.spanId },
        { level: 'info', app: 'identity', msg: 'idle' },
      ]);
    } finally {
      context.disable();
    }
  });
});
