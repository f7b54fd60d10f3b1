import { randomUUID } from 'node:crypto';
import { NatsResponseJSONDeserializer, type WritePacket } from '@nestjs/microservices';
import { NatsRecordSerializer } from '@nestjs/microservices/serializers/nats-record.serializer.js';
import { headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { CommonErrors, type EventDef, type MessageDef } from '@app/contracts';
import { NATS_SPANS, traceHeaders, withReceivedSpan, withSendSpan } from '../telemetry/telemetry.js';
import { appOfPattern, didNotAnswer, directReply, headerRecord, logError, replyError, transportLogger, unavailable } from './dispatch.js';
import { requestOfMessage } from '../logging/logger.js';
import { natsRequestMetrics } from '../telemetry/metrics.js';
import { MessageBus, type SendOptions } from './message-bus.js';
import { connectNats, natsServers } from './nats-connect.js';

/** How long a send waits for the bus connection itself before answering Unavailable. */
const CONNECT_WAIT_MS = 2_000;

function toNatsHeaders(record: Record<string, string>): MsgHdrs | undefined {
  const entries = Object.entries(record);
  if (entries.length === 0) return undefined;
  const h = natsHeaders();
  for (const [key, value] of entries) h.set(key, value);
  return h;
}

/** Replies to this bus's requests: one subscription to `<prefix>.*`, a settle function per request in flight. */
interface ReplyInbox {
  readonly connection: NatsConnection;
  readonly prefix: string;
  readonly pending: Map<string, (msg: Msg) => void>;
  next: number;
}

interface Subscriber {
  readonly subject: string;
  /** A queue group (MessageBus.serve: one replica of the app answers); none for broadcasts. */
  readonly queue?: string;
  subscription: Subscription | null;
  deliver(msg: Msg): void;
}

/**
 * The NATS side of MessageBus: requests with the client's request() (a missing responder is
 * reported by the server at once), in Nest's packet format so ServerNats answers them.
 * One lazily opened connection, reconnecting forever.
 */
export class NatsMessageBus extends MessageBus {
  private connection: Promise<NatsConnection> | null = null;
  private client: NatsConnection | null = null;
  private up = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly subscribers = new Set<Subscriber>();
  private inbox: ReplyInbox | null = null;
  private readonly serializer = new NatsRecordSerializer();
  private readonly deserializer = new NatsResponseJSONDeserializer();

  constructor(
    private readonly natsUrl: string,
    readonly app: string,
  ) {
    super();
  }

  /**
   * Opens the connection once; after that the client reconnects by itself, forever. If
   * NATS is down at the first attempt, sends answer Unavailable and, while broadcast
   * subscribers wait for the connection, another attempt follows every 2 s.
   */
  private connect(): Promise<NatsConnection> {
    if (this.connection) return this.connection;
    const attempt: Promise<NatsConnection> = connectNats({
      servers: natsServers(this.natsUrl),
      name: `${this.app}-bus`,
      maxReconnectAttempts: -1,
      timeout: CONNECT_WAIT_MS,
      noAsyncTraces: true,
    }).then(
      (nc) => {
        if (this.closed) {
          void nc.close();
          throw new Error('message bus closed');
        }
        this.client = nc;
        this.up = true;
        void this.watch(nc);
        for (const subscriber of this.subscribers) this.attach(nc, subscriber);
        return nc;
      },
      (err: unknown) => {
        if (this.connection === attempt) this.connection = null;
        transportLogger.warn('cannot connect to NATS', { app: this.app, error: err instanceof Error ? err.message : String(err) });
        if (!this.closed && this.subscribers.size > 0 && !this.retry) {
          this.retry = setTimeout(() => {
            this.retry = undefined;
            if (!this.closed) this.connect().catch(() => undefined);
          }, CONNECT_WAIT_MS);
          this.retry.unref();
        }
        throw err;
      },
    );
    this.connection = attempt;
    return attempt;
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        this.up = false;
        transportLogger.warn('NATS disconnected', { app: this.app });
      } else if (status.type === 'reconnect') {
        this.up = true;
        transportLogger.info('NATS reconnected', { app: this.app });
      }
    }
    this.up = false;
  }

  /**
   * Request-reply over one wildcard inbox subscription per connection, replies told apart by
   * the last subject token. (nats.js's own request() constructs an Error, with its stack
   * trace, for every request it completes: 4 % of a gateway's time per update check.) A
   * reply with status 503 and no data is the server saying nobody subscribes: Unavailable.
   */
  private request(nc: NatsConnection, subject: string, data: Uint8Array, timeoutMs: number, app: string): Promise<Msg> {
    const inbox = this.replyInbox(nc);
    const token = String(inbox.next++);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        inbox.pending.delete(token);
        reject(didNotAnswer(app));
      }, timeoutMs);
      inbox.pending.set(token, (msg) => {
        clearTimeout(timer);
        if (msg.data.length === 0 && msg.headers?.code === 503) reject(unavailable(app));
        else resolve(msg);
      });
      try {
        nc.publish(subject, data, { reply: `${inbox.prefix}.${token}`, headers: toNatsHeaders(traceHeaders()) });
      } catch {
        clearTimeout(timer);
        inbox.pending.delete(token);
        reject(unavailable(app));
      }
    });
  }

  private replyInbox(nc: NatsConnection): ReplyInbox {
    if (this.inbox?.connection === nc) return this.inbox;
    const inbox: ReplyInbox = { connection: nc, prefix: `_INBOX.${randomUUID().replaceAll('-', '')}`, pending: new Map(), next: 0 };
    nc.subscribe(`${inbox.prefix}.*`, {
      callback: (err, msg) => {
        if (err) return logError('reply subscription failed', err, { app: this.app });
        const token = msg.subject.slice(inbox.prefix.length + 1);
        const settle = inbox.pending.get(token);
        if (!settle) return; // timed out already
        inbox.pending.delete(token);
        settle(msg);
      },
    });
    this.inbox = inbox;
    return inbox;
  }

  /** The connection if it is usable within `waitMs`, else null (NATS down). */
  private async usableConnection(waitMs: number): Promise<NatsConnection | null> {
    if (this.closed) return null;
    if (this.client) return this.up && !this.client.isClosed() ? this.client : null;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.connect(),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), waitMs);
        }),
      ]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  send<Req, Res>(message: MessageDef<Req, Res>, payload: Req, options?: SendOptions): Promise<Res> {
    const app = appOfPattern(message.pattern);
    const timeoutMs = options?.timeoutMs ?? message.timeoutMs;
    const metrics = natsRequestMetrics(message.pattern);
    return withSendSpan(message.pattern, NATS_SPANS.request, async () => {
      const started = performance.now();
      const nc = await this.usableConnection(Math.min(CONNECT_WAIT_MS, timeoutMs));
      if (!nc) {
        metrics.errors.inc();
        throw unavailable(app);
      }
      const outgoing = this.serializer.serialize({ pattern: message.pattern, data: payload, id: randomUUID() });
      let reply: Msg;
      try {
        reply = await this.request(nc, message.pattern, outgoing.data as Uint8Array, timeoutMs, app);
      } catch (err) {
        metrics.errors.inc(); // no responder, no answer in time, or not sent
        throw err;
      }
      metrics.duration.observe((performance.now() - started) / 1000);
      let packet: WritePacket;
      try {
        packet = (await this.deserializer.deserialize(reply)) as WritePacket;
      } catch {
        throw CommonErrors.internal(); // not a Nest reply packet
      }
      const error = replyError(packet);
      if (error) throw error;
      return packet.response as Res;
    });
  }

  /** Usable, or not opened yet (it opens on the first use); false while NATS is unreachable. */
  override connected(): boolean {
    if (this.closed) return false;
    if (this.client) return this.up && !this.client.isClosed();
    return this.connection === null;
  }

  emit<P>(event: EventDef<P>, payload: P): void {
    void withSendSpan(event.subject, NATS_SPANS.publish, async () => {
      const nc = await this.connect();
      const headers = toNatsHeaders(traceHeaders());
      if (event.delivery === 'queue') {
        // A Nest event packet (no id): @EventPattern handlers in one replica per app.
        const outgoing = this.serializer.serialize({ pattern: event.subject, data: payload });
        nc.publish(event.subject, outgoing.data as Uint8Array, { headers });
      } else {
        nc.publish(event.subject, JSON.stringify(payload ?? null), { headers });
      }
    }).catch((err: unknown) => {
      logError('could not emit event', err, { subject: event.subject });
    });
  }

  subscribe<P>(event: EventDef<P>, handler: (payload: P) => void | Promise<void>): () => void {
    const subscriber: Subscriber = {
      subject: event.subject,
      subscription: null,
      deliver: (msg) => {
        let payload: P;
        try {
          payload = msg.json<P>();
        } catch {
          return transportLogger.warn('unreadable event dropped', { subject: event.subject });
        }
        withReceivedSpan(event.subject, headerRecord(msg.headers), NATS_SPANS.consume, async () => handler(payload)).catch((error: unknown) => {
          logError('event subscriber failed', error, { subject: event.subject });
        });
      },
    };
    return this.addSubscriber(subscriber);
  }

  private addSubscriber(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber);
    if (this.client) this.attach(this.client, subscriber);
    else this.connect().catch(() => undefined); // attached once connected
    return () => {
      this.subscribers.delete(subscriber);
      subscriber.subscription?.unsubscribe();
      subscriber.subscription = null;
    };
  }

  serve<Req, Res>(message: MessageDef<Req, Res>, handler: (request: Req) => Res | Promise<Res>): () => void {
    const pattern = message.pattern;
    return this.addSubscriber({
      subject: pattern,
      queue: this.app,
      subscription: null,
      deliver: (msg) => {
        let request: { id?: unknown; data?: unknown };
        try {
          request = msg.json<{ id?: unknown; data?: unknown }>();
        } catch {
          return transportLogger.warn('unreadable request dropped', { subject: pattern });
        }
        if (typeof request.id !== 'string' || !msg.reply) return;
        const id = request.id;
        const respond = (packet: WritePacket) => {
          try {
            // Nest's reply format (what ServerNats would publish), so send() reads it either way.
            msg.respond(this.serializer.serialize({ ...packet, id }).data as Uint8Array);
          } catch (err) {
            logError('could not publish a reply', err, { pattern }, requestOfMessage(request.data));
          }
        };
        const reply = withReceivedSpan(pattern, headerRecord(msg.headers), NATS_SPANS.reply, (span) =>
          directReply(pattern, handler as (request: unknown) => unknown, request.data, span),
        );
        if (reply instanceof Promise) void reply.then(respond);
        else respond(reply);
      },
    });
  }

  /** A subscription (broadcast: no queue group, so every subscribed process receives each event). */
  private attach(nc: NatsConnection, subscriber: Subscriber): void {
    if (subscriber.subscription || nc.isClosed()) return;
    subscriber.subscription = nc.subscribe(subscriber.subject, {
      ...(subscriber.queue ? { queue: subscriber.queue } : {}),
      callback: (err, msg) => {
        if (err) return logError('subscription failed', err, { subject: subscriber.subject });
        subscriber.deliver(msg);
      },
    });
  }

  /** Flushes what was emitted and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.subscribers.clear();
    const nc = this.client;
    this.client = null;
    this.up = false;
    if (nc && !nc.isClosed()) await nc.drain().catch(() => nc.close());
  }
}
