import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { AdminEvents, type RequestLogEntry } from '@app/contracts';
import { MessageBus } from '@app/infra';

const FLUSH_INTERVAL_MS = 1_000;
const BATCH_SIZE = 500;
/** Bounded so that an admin outage cannot exhaust the gateway's memory; drops are counted. */
const MAX_BUFFERED = 20_000;

/**
 * Collects one entry per request and hands them to the admin app in batches, off the
 * request path: recording an entry is an array push.
 */
@Injectable()
export class RequestLog implements OnModuleInit, OnModuleDestroy {
  private buffer: RequestLogEntry[] = [];
  private timer?: NodeJS.Timeout;
  dropped = 0;
  sent = 0;

  constructor(private readonly bus: MessageBus) {}

  onModuleInit(): void {
    this.timer = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.flush();
  }

  record(entry: RequestLogEntry): void {
    if (this.buffer.length >= MAX_BUFFERED) {
      this.buffer.shift();
      this.dropped++;
    }
    this.buffer.push(entry);
    if (this.buffer.length >= BATCH_SIZE) this.flush();
  }

  flush(): void {
    while (this.buffer.length) {
      const entries = this.buffer.splice(0, BATCH_SIZE);
      this.bus.emit(AdminEvents.requestLog, { entries });
      this.sent += entries.length;
    }
  }
}
