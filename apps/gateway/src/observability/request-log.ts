import { randomUUID } from 'node:crypto';
import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type AcknowledgedRequestLogBatch, AdminMessages, type RequestLogEntry } from '@app/contracts';
import { JsonLogger, MessageBus, processMetrics, ServiceMetrics } from '@app/infra';
import { GatewayMetrics } from './metrics.js';

const FLUSH_INTERVAL_MS = 1_000;
const BATCH_SIZE = 500;
/**
 * Entries held at most (waiting for a batch, or in batches the admin app has not acknowledged
 * yet): about 10 MB. Past it new entries are dropped and counted (`dropped`, a warning a
 * minute), never blocking a request: 20,000 entries are 40 s at 500 requests/s per replica.
 */
export const REQUEST_LOG_MAX_HELD = 20_000;
/** Batches on their way at once. */
const MAX_IN_FLIGHT = 4;
/** Backoff while the admin app does not acknowledge: doubles from the first to the last value. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;
/** At shutdown, held batches get this long to be acknowledged. */
const SHUTDOWN_GRACE_MS = 3_000;
const WARN_EVERY_MS = 60_000;

interface HeldBatch {
  readonly batch: AcknowledgedRequestLogBatch;
  inFlight: boolean;
}

/**
 * Collects one entry per request and hands them to the admin app in batches, off the request
 * path (recording an entry is an array push). Delivery is acknowledged: a batch
 * (AdminMessages.storeRequestLog, with a `batch_id` the admin app stores it once by) is held
 * until the admin app replies and sent again after a backoff (0.5 s doubling to 30 s) while
 * it does not: an admin outage or a NATS restart costs no entries, up to REQUEST_LOG_MAX_HELD
 * held per gateway. What a gateway holds when it dies itself (kill -9) is lost: at most the
 * last second of its requests, or its backlog during an admin outage.
 */
@Injectable()
export class RequestLog implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new JsonLogger('gateway');
  private buffer: RequestLogEntry[] = [];
  private held: HeldBatch[] = [];
  private heldEntries = 0;
  private inFlight = 0;
  private failures = 0;
  private retryAt = 0;
  private lastWarning = 0;
  private timer?: NodeJS.Timeout;
  /** Entries dropped because REQUEST_LOG_MAX_HELD were held; entries acknowledged by the admin app. */
  dropped = 0;
  sent = 0;

  constructor(
    private readonly bus: MessageBus,
    metrics: GatewayMetrics,
  ) {
    metrics.gauge('fds_request_log_pending', () => this.pending);
    metrics.gauge('fds_request_log_dropped', () => this.dropped);
    processMetrics.collected(ServiceMetrics.requestLogBacklog).collect([], () => this.pending);
    processMetrics.counter(ServiceMetrics.requestLogDropped).collect([], () => this.dropped);
  }

  onModuleInit(): void {
    this.timer = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.flush();
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    while (this.held.length && Date.now() < deadline) {
      this.retryAt = 0;
      this.pump();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (this.held.length) this.logger.warn('request-log entries not delivered at shutdown', { lost: this.heldEntries });
  }

  /** Entries waiting: in the current batch and in batches not acknowledged yet. */
  get pending(): number {
    return this.buffer.length + this.heldEntries;
  }

  record(entry: RequestLogEntry): void {
    if (this.pending >= REQUEST_LOG_MAX_HELD) {
      this.dropped++;
      this.warn('request-log entries dropped: the admin app has not acknowledged for a while', {});
      return;
    }
    this.buffer.push(entry);
    if (this.buffer.length >= BATCH_SIZE) this.flush();
  }

  flush(): void {
    while (this.buffer.length) {
      const entries = this.buffer.splice(0, BATCH_SIZE);
      this.held.push({ batch: { batch_id: randomUUID(), entries }, inFlight: false });
      this.heldEntries += entries.length;
    }
    this.pump();
  }

  private pump(): void {
    if (Date.now() < this.retryAt) return;
    for (const held of this.held) {
      if (this.inFlight >= MAX_IN_FLIGHT) return;
      if (!held.inFlight) this.send(held);
    }
  }

  private send(held: HeldBatch): void {
    held.inFlight = true;
    this.inFlight++;
    this.bus.send(AdminMessages.storeRequestLog, held.batch).then(
      () => {
        held.inFlight = false;
        this.inFlight--;
        this.failures = 0;
        this.retryAt = 0;
        const at = this.held.indexOf(held);
        if (at >= 0) this.held.splice(at, 1);
        this.heldEntries -= held.batch.entries.length;
        this.sent += held.batch.entries.length;
        this.pump();
      },
      (err: unknown) => {
        held.inFlight = false;
        this.inFlight--;
        this.failures++;
        this.retryAt = Date.now() + Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (this.failures - 1));
        this.warn('request-log batch not acknowledged by the admin app; retrying', { error: err instanceof Error ? err.message : String(err) });
      },
    );
  }

  private warn(msg: string, fields: Record<string, unknown>): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.logger.warn(msg, { ...fields, held: this.pending, dropped: this.dropped, retry_in_ms: Math.max(0, this.retryAt - now) });
  }
}
