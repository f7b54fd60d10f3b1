import { type MessageHandler, NatsContext, ServerNats, type WritePacket } from '@nestjs/microservices';
import { type ConnectionOptions, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { NATS_SPANS, withReceivedSpan } from '../telemetry/telemetry.js';
import { headerRecord, InFlight, processEvent, processRequest, type ServerHooks } from './dispatch.js';
import { connectNats, natsServers } from './nats-connect.js';

/** How long a closing server lets running handlers finish. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Nest's ServerNats in queue group `<app>` (so replicas share the work; subjects are the
 * message patterns and queue-event subjects), with every handler run in a span continuing
 * the sender's trace and in the log context of the request. Closing drains: no new
 * messages are taken, running handlers may finish (10 s at most), then the connection closes.
 */
export class NatsMessageServer extends ServerNats {
  private readonly inFlight = new InFlight();
  private readonly subs: Subscription[] = [];
  private readonly hooks: ServerHooks;

  private readonly connectionOptions: ConnectionOptions;
  /** Whether the connection is up, so the subscriptions take messages (the app's readiness). */
  connected = false;

  constructor(
    natsUrl: string,
    readonly app: string,
  ) {
    const connection: ConnectionOptions = { servers: natsServers(natsUrl), name: app, maxReconnectAttempts: -1 };
    super({ ...connection, queue: app });
    this.connectionOptions = connection;
    this.hooks = {
      getHandlerByPattern: (pattern) => this.cachedHandler(pattern),
      runWithProcessingHooks: (context, fn) => this.runWithProcessingHooks(context, fn),
    };
  }

  /** As ServerNats's own, through the turn-batched transport (connectNats): replies leave together. */
  override createNatsClient(): Promise<NatsConnection> {
    return connectNats(this.connectionOptions);
  }

  /** As ServerNats.bindEvents, keeping the subscriptions so close() can drain them. */
  override bindEvents(client: NatsConnection): void {
    const defaultQueue = this.app;
    for (const [channel, handler] of this.messageHandlers) {
      const queue = (handler.extras?.queue as string | undefined) ?? defaultQueue;
      const onMessage = this.getMessageHandler(channel) as (err: Error | null, msg: Msg) => void;
      this.subs.push(client.subscribe(channel, { queue, callback: onMessage.bind(this) }));
    }
    this.connected = true;
    void this.watch(client);
  }

  private async watch(client: NatsConnection): Promise<void> {
    for await (const status of client.status()) {
      if (status.type === 'disconnect') this.connected = false;
      else if (status.type === 'reconnect') this.connected = true;
    }
    this.connected = false;
  }

  /** Nest's lookup JSON.parses (and throws for) every plain subject: once per subject is enough. */
  private readonly handlerCache = new Map<string, MessageHandler | null>();
  private cachedHandler(pattern: string): MessageHandler | null {
    let handler = this.handlerCache.get(pattern);
    if (handler === undefined) {
      handler = this.getHandlerByPattern(pattern);
      this.handlerCache.set(pattern, handler);
    }
    return handler;
  }

  override handleMessage(channel: string, natsMsg: Msg): Promise<void> {
    return this.inFlight.track(this.receive(channel, natsMsg));
  }

  private async receive(channel: string, natsMsg: Msg): Promise<void> {
    const context = new NatsContext([natsMsg.subject, natsMsg.headers]);
    const message = (await this.deserializer.deserialize(natsMsg, { channel, replyTo: natsMsg.reply })) as { id?: string; data?: unknown };
    const headers = headerRecord(natsMsg.headers);
    if (message.id === undefined) {
      return withReceivedSpan(channel, headers, NATS_SPANS.consume, (span) => processEvent(this.hooks, channel, message.data, context, span));
    }
    const publish = this.getPublisher(natsMsg, message.id, context) as (packet: WritePacket) => unknown;
    return withReceivedSpan(channel, headers, NATS_SPANS.reply, (span) => processRequest(this.hooks, channel, message.data, context, publish, span));
  }

  override async close(): Promise<void> {
    let client: NatsConnection | undefined;
    try {
      client = this.unwrap<NatsConnection>();
    } catch {
      return; // never listened, or already closed
    }
    const subs = this.subs.splice(0);
    await Promise.allSettled(subs.map((sub) => sub.drain()));
    await this.inFlight.settle(CLOSE_GRACE_MS);
    await client.drain().catch(() => undefined);
    await super.close();
  }
}
