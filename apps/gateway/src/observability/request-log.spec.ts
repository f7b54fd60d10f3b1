import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { AcknowledgedRequestLogBatch, EventDef, MessageDef, RequestLogEntry } from '@app/contracts';
import { configureLogging, MessageBus } from '@app/infra';
import { GatewayMetrics } from './metrics.js';
import { REQUEST_LOG_MAX_HELD, RequestLog } from './request-log.js';

configureLogging({ sink: () => undefined });

/** The admin app as the gateway sees it: acknowledges batches, or fails while `down`. */
class AdminBus extends MessageBus {
  down = false;
  readonly attempts: AcknowledgedRequestLogBatch[] = [];
  readonly stored = new Map<string, number>();
  async send<Req, Res>(_message: MessageDef<Req, Res>, payload: Req): Promise<Res> {
    const batch = payload as AcknowledgedRequestLogBatch;
    this.attempts.push(batch);
    if (this.down) throw new Error('admin unavailable');
    this.stored.set(batch.batch_id, batch.entries.length);
    return { stored: batch.entries.length } as Res;
  }
  emit<P>(_event: EventDef<P>): void {}
  serve(): () => void {
    throw new Error('no');
  }
  subscribe(): () => void {
    return () => undefined;
  }
}

const entry = (n: number): RequestLogEntry => ({
  ts: '2026-11-25T10:00:00.000Z',
  domain: null,
  actor: null,
  method: 'GET',
  route: '/healthz',
  path: '/healthz',
  status: 200,
  ip: '192.0.2.1',
  user_agent: 'unit',
  bytes_in: 0,
  bytes_out: 2,
  duration_ms: 1,
  request_id: `r-${n}`,
});

describe('RequestLog (acknowledged delivery)', () => {
  let bus: AdminBus;
  let log: RequestLog;

  beforeEach(() => {
    jest.useFakeTimers();
    bus = new AdminBus();
    log = new RequestLog(bus, new GatewayMetrics());
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('sends a batch and forgets it once acknowledged', async () => {
    for (let n = 0; n < 3; n++) log.record(entry(n));
    log.flush();
    await jest.advanceTimersByTimeAsync(0);
    expect([...bus.stored.values()]).toEqual([3]);
    expect(log.pending).toBe(0);
    expect(log.sent).toBe(3);
  });

  it('holds batches while the admin app does not answer and resends them (same batch_id) after the backoff', async () => {
    bus.down = true;
    for (let n = 0; n < 3; n++) log.record(entry(n));
    log.flush();
    await jest.advanceTimersByTimeAsync(0);
    expect(bus.attempts).toHaveLength(1);
    expect(log.pending).toBe(3);
    log.flush(); // within the backoff: no new attempt
    await jest.advanceTimersByTimeAsync(0);
    expect(bus.attempts).toHaveLength(1);
    bus.down = false;
    await jest.advanceTimersByTimeAsync(1_000);
    log.flush();
    await jest.advanceTimersByTimeAsync(0);
    expect(bus.attempts.map((b) => b.batch_id)).toEqual([bus.attempts[0].batch_id, bus.attempts[0].batch_id]);
    expect(log.pending).toBe(0);
    expect(log.sent).toBe(3);
    expect(log.dropped).toBe(0);
  });

  it(`holds at most ${REQUEST_LOG_MAX_HELD} entries: past that new ones are dropped and counted, never blocking`, async () => {
    bus.down = true;
    for (let n = 0; n < REQUEST_LOG_MAX_HELD + 7; n++) log.record(entry(n));
    await jest.advanceTimersByTimeAsync(0);
    expect(log.pending).toBe(REQUEST_LOG_MAX_HELD);
    expect(log.dropped).toBe(7);
    bus.down = false;
    for (let i = 0; i < 30 && log.pending > 0; i++) {
      await jest.advanceTimersByTimeAsync(31_000);
      log.flush();
      await jest.advanceTimersByTimeAsync(0);
    }
    expect(log.pending).toBe(0);
    expect([...bus.stored.values()].reduce((a, b) => a + b, 0)).toBe(REQUEST_LOG_MAX_HELD);
  });
});
