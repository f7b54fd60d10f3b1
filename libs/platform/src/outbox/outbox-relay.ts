import { type OnApplicationShutdown, type OnModuleInit, type Provider } from '@nestjs/common';
import { AdminMessages } from '@app/contracts';
import { JsonLogger, MessageBus, processMetrics, ServiceMetrics, sharedReading } from '@app/infra';
import { DataSource } from 'typeorm';
import { OutboxRepository, outboxWritten } from './outbox.repository.js';

/** Rows per request to the admin app. */
export const OUTBOX_BATCH = 100;
/** Idle poll (rows written by another replica or the CLI); this process's own writes wake the relay at once. */
export const OUTBOX_POLL_MS = 1_000;
/** Backoff while the admin app does not acknowledge: doubles from the first to the last value. */
export const OUTBOX_RETRY_MIN_MS = 500;
export const OUTBOX_RETRY_MAX_MS = 30_000;
/** A warning names the backlog at most this often while deliveries fail. */
const WARN_EVERY_MS = 60_000;

/**
 * Sends an app's outbox (OutboxRepository) to the admin app, at least once: a batch of claimed
 * rows goes as AdminMessages.storeRecords (request/reply) and the rows are deleted only after
 * the reply; a failure (admin down or killed mid-request, NATS restarting: no responder or no
 * answer in time) releases them for a retry after a backoff of 0.5 s doubling up to 30 s. Any
 * number of replicas relay the same table: each claims disjoint rows (SKIP LOCKED) for
 * OUTBOX_CLAIM_SECONDS, so the rows of a replica that dies mid-send go out again after that.
 * The admin app stores each id once, so a repeat is harmless.
 */
export class OutboxRelay implements OnModuleInit, OnApplicationShutdown {
  private readonly logger: JsonLogger;
  private readonly outbox: OutboxRepository;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private failures = 0;
  private lastWarning = 0;
  /** A write in this process: relay now, unless deliveries are failing (then the backoff decides). */
  private readonly wake = () => {
    if (!this.failures) this.schedule(0);
  };
  /** Delivered rows and failed attempts since start (tests, logs). */
  delivered = 0;
  failedAttempts = 0;

  constructor(
    dataSource: DataSource,
    private readonly bus: MessageBus,
    private readonly schema: string,
  ) {
    this.logger = new JsonLogger(schema);
    this.outbox = new OutboxRepository(dataSource.manager, schema);
  }

  onModuleInit(): void {
    this.stopped = false;
    outboxWritten.on(this.schema, this.wake);
    this.schedule(0); // what an earlier run left behind
    const backlog = sharedReading(() => this.outbox.backlog());
    processMetrics.collected(ServiceMetrics.outboxBacklog).collect([this.schema], async () => (await backlog()).pending);
    processMetrics.collected(ServiceMetrics.outboxOldestAge).collect([this.schema], async () => (await backlog()).oldestSeconds);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    outboxWritten.off(this.schema, this.wake);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running; // a batch in flight is acknowledged or released; never cut off mid-way
  }

  /** Relays everything claimable now (tests, and the timer). */
  async drain(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) {
      if (delayMs > 0) return; // a wake-up is due anyway
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain().then(() => this.schedule(this.failures ? this.backoffMs() : OUTBOX_POLL_MS));
    }, delayMs);
    this.timer.unref();
  }

  private backoffMs(): number {
    return Math.min(OUTBOX_RETRY_MAX_MS, OUTBOX_RETRY_MIN_MS * 2 ** Math.max(0, this.failures - 1));
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      while (!this.stopped && (await this.sendOne()) === OUTBOX_BATCH); // full batches: more may wait
    } while (this.again && !this.failures && !this.stopped);
  }

  /** One batch: the number of rows acknowledged, 0 when there was nothing or it failed. */
  private async sendOne(): Promise<number> {
    let claimed: Awaited<ReturnType<OutboxRepository['claim']>>;
    try {
      claimed = await this.outbox.claim(OUTBOX_BATCH);
    } catch (err) {
      this.failed(err, []);
      return 0;
    }
    if (claimed.length === 0) return 0;
    const ids = claimed.map((c) => c.record.id);
    try {
      await this.bus.send(AdminMessages.storeRecords, { records: claimed.map((c) => c.record) });
    } catch (err) {
      await this.outbox.release(ids, this.nextBackoffMs()).catch(() => undefined); // else the claim lapses by itself
      this.failed(err, ids);
      return 0;
    }
    this.failures = 0;
    this.delivered += ids.length;
    // Stored by the admin app: deleting can fail only with our own database; the rows then go again (harmless).
    await this.outbox.acknowledge(ids).catch((err: unknown) => this.failed(err, []));
    return ids.length;
  }

  private nextBackoffMs(): number {
    return Math.min(OUTBOX_RETRY_MAX_MS, OUTBOX_RETRY_MIN_MS * 2 ** this.failures);
  }

  private failed(err: unknown, ids: readonly string[]): void {
    this.failures++;
    this.failedAttempts++;
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    void this.outbox
      .backlog()
      .catch(() => null)
      .then((backlog) =>
        this.logger.warn('outbox not delivered to the admin app yet; retrying', {
          error: err instanceof Error ? err.message : String(err),
          batch: ids.length,
          outbox_pending: backlog?.pending,
          outbox_oldest_seconds: backlog?.oldestSeconds,
          retry_in_ms: this.backoffMs(),
        }),
      );
  }
}

/** The relay of an app's outbox as a provider (started and stopped with the app). */
export function outboxRelayProvider(schema: string): Provider {
  return {
    provide: OutboxRelay,
    useFactory: (dataSource: DataSource, bus: MessageBus) => new OutboxRelay(dataSource, bus, schema),
    inject: [DataSource, MessageBus],
  };
}
