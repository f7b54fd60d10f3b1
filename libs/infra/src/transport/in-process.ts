import { type MessageHandler, NatsContext, Server, type WritePacket } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { ErrorCode, type EventDef, type MessageDef } from '@app/contracts';
import { traceHeaders, withClientSpan, withRemoteSpan } from '../telemetry/telemetry.js';
import {
  appOfPattern,
  didNotAnswer,
  directReply,
  InFlight,
  logError,
  jsonClone,
  processEvent,
  processRequest,
  replyError,
  type ServerHooks,
  unavailable,
} from './dispatch.js';
import { requestOfMessage } from '../logging/logger.js';
import { MessageBus, type SendOptions } from './message-bus.js';

export const IN_PROCESS_TRANSPORT = Symbol('in-process');

const CLOSE_GRACE_MS = 10_000;

/** Handlers see the same context as over NATS: a NatsContext with the subject and NATS headers. */
function contextFor(subject: string, headers: Record<string, string>): NatsContext {
  let h = NO_HEADERS;
  for (const key in headers) {
    if (h === NO_HEADERS) h = natsHeaders();
    h.set(key, headers[key]);
  }
  return new NatsContext([subject, h]);
}
/** Shared by messages without headers (tracing off): nobody writes to a received message's headers. */
const NO_HEADERS = natsHeaders();

type Listener = (payload: unknown, headers: Record<string, string>) => void;

/** A handler registered with MessageBus.serve: answered by a direct call. */
interface DirectResponder {
  readonly app: string;
  readonly handler: (request: unknown) => unknown;
}

/**
 * The process-wide broker of the standalone mode: the app servers of this process and the
 * broadcast listeners. Like NATS queue groups, a request or a queue event goes to one
 * server of each app (round robin among replicas of the same app).
 */
class InProcessBroker {
  private readonly servers: InProcessServer[] = [];
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly cursors = new Map<string, number>();
  private readonly directs = new Map<string, DirectResponder[]>();

  /** Like a Nest handler of `pattern`, one more replica of `responder.app`; returns its removal. */
  serve(pattern: string, responder: DirectResponder): () => void {
    const list = this.directs.get(pattern) ?? [];
    list.push(responder);
    this.directs.set(pattern, list);
    return () => {
      const index = list.indexOf(responder);
      if (index >= 0) list.splice(index, 1);
      if (list.length === 0 && this.directs.get(pattern) === list) this.directs.delete(pattern);
    };
  }

  directResponder(pattern: string): DirectResponder | undefined {
    const list = this.directs.get(pattern);
    return list ? this.roundRobin(`d:${pattern}`, list) : undefined;
  }

  /** Servers handling a pattern, per pattern (cleared whenever a server comes or goes). */
  private readonly handling = new Map<string, InProcessServer[]>();

  register(server: InProcessServer): void {
    if (!this.servers.includes(server)) this.servers.push(server);
    this.handling.clear();
  }

  unregister(server: InProcessServer): void {
    const index = this.servers.indexOf(server);
    if (index >= 0) this.servers.splice(index, 1);
    this.handling.clear();
  }

  private serversHandling(pattern: string): InProcessServer[] {
    let found = this.handling.get(pattern);
    if (!found) {
      found = this.servers.filter((s) => s.handles(pattern));
      this.handling.set(pattern, found);
    }
    return found;
  }

  private roundRobin<T>(key: string, candidates: T[]): T | undefined {
    if (candidates.length <= 1) return candidates[0];
    const next = (this.cursors.get(key) ?? 0) % candidates.length;
    this.cursors.set(key, next + 1);
    return candidates[next];
  }

  responder(pattern: string): InProcessServer | undefined {
    return this.roundRobin(`m:${pattern}`, this.serversHandling(pattern));
  }

  /** One server per app among those handling `subject`. */
  queueReceivers(subject: string): InProcessServer[] {
    const byApp = new Map<string, InProcessServer[]>();
    for (const server of this.serversHandling(subject)) {
      const group = byApp.get(server.app) ?? [];
      group.push(server);
      byApp.set(server.app, group);
    }
    return [...byApp].map(([app, group]) => this.roundRobin(`e:${app}:${subject}`, group)!);
  }

  listen(subject: string, listener: Listener): () => void {
    const set = this.listeners.get(subject) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(subject, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(subject) === set) this.listeners.delete(subject);
    };
  }

  broadcastListeners(subject: string): Listener[] {
    return [...(this.listeners.get(subject) ?? [])];
  }

  reset(): void {
    this.servers.length = 0;
    this.handling.clear();
    this.directs.clear();
    this.listeners.clear();
    this.cursors.clear();
  }
}

// On globalThis so that every copy of this module in the process shares the one broker.
const BROKER_KEY = Symbol.for('firmware-service.transport.in-process-broker');
function broker(): InProcessBroker {
  const holder = globalThis as unknown as Record<symbol, InProcessBroker | undefined>;
  return (holder[BROKER_KEY] ??= new InProcessBroker());
}

/** Forgets every registered server and broadcast listener (tests). */
export function resetInProcessBroker(): void {
  broker().reset();
}

/** A Nest transport strategy registering the app's handlers in the process-wide broker. */
export class InProcessServer extends Server implements ServerHooks {
  override transportId = IN_PROCESS_TRANSPORT;
  private readonly inFlight = new InFlight();
  private listening = false;

  constructor(readonly app: string) {
    super();
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    broker().register(this);
    this.listening = true;
    this._status$.next('connected');
    callback();
  }

  async close(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    broker().unregister(this);
    await this.inFlight.settle(CLOSE_GRACE_MS);
    this._status$.next('disconnected');
  }

  on(): void {
    // No connection events in process.
  }

  unwrap<T>(): T {
    return broker() as T;
  }

  handles(pattern: string): boolean {
    return this.getHandlerByPattern(pattern) !== null;
  }

  /**
   * Nest's lookup JSON.parses the pattern and throws for every plain subject: costly on a hot
   * path (the broker asks every server per message). Handlers are fixed once listening: cached.
   */
  private readonly handlerCache = new Map<string, MessageHandler | null>();
  override getHandlerByPattern(pattern: string): MessageHandler | null {
    if (!this.listening) return super.getHandlerByPattern(pattern);
    let handler = this.handlerCache.get(pattern);
    if (handler === undefined) {
      handler = super.getHandlerByPattern(pattern);
      this.handlerCache.set(pattern, handler);
    }
    return handler;
  }

  // ServerHooks: the protected Server methods the shared dispatch uses.
  override runWithProcessingHooks(...args: Parameters<Server['runWithProcessingHooks']>): unknown {
    return super.runWithProcessingHooks(...args);
  }

  /** A request already JSON-cloned by the sender (unless `byReference`); resolves with the first reply packet, cloned likewise. */
  request(pattern: string, data: unknown, headers: Record<string, string>, byReference = false): Promise<WritePacket> {
    return new Promise<WritePacket>((resolve) => {
      let replied = false;
      const publish = (packet: WritePacket) => {
        if (replied) return;
        replied = true;
        resolve(byReference ? packet : jsonClone(packet));
      };
      const context = contextFor(pattern, headers);
      // Asynchronous like the wire: the handler never runs inside the sender's call.
      const work = Promise.resolve().then(() => withRemoteSpan(pattern, headers, (span) => processRequest(this, pattern, data, context, publish, span)));
      void this.inFlight.track(work).catch((err: unknown) => {
        logError('message handler failed', err, { pattern }, requestOfMessage(data));
        publish({ err: { code: ErrorCode.Internal, message: 'internal error' }, isDisposed: true });
      });
    });
  }

  event(subject: string, data: unknown, headers: Record<string, string>): Promise<void> {
    const context = contextFor(subject, headers);
    return this.inFlight.track(withRemoteSpan(subject, headers, (span) => processEvent(this, subject, data, context, span)));
  }
}

/**
 * A request to a MessageBus.serve handler: asynchronous like the wire (the handler runs in a
 * microtask, never inside the sender's call), its reply cloned unless `byReference`. A
 * handler that answers at once (the update check with everything cached) settles the send
 * without further promises or a timer; one that returns a promise is timed out as any request.
 */
function askDirectly<Res>(
  message: MessageDef<unknown, Res>,
  responder: DirectResponder,
  data: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
  app: string,
): Promise<Res> {
  const copied = (packet: WritePacket) => (message.byReference ? packet : jsonClone(packet));
  return new Promise<Res>((resolve, reject) => {
    queueMicrotask(() => {
      const reply = withRemoteSpan(message.pattern, headers, (span) => directReply(message.pattern, responder.handler, data, span));
      if (reply instanceof Promise) settleWithin(reply.then(copied), timeoutMs, app, resolve, reject);
      else settleWith(copied(reply), resolve, reject);
    });
  });
}

/** Settles a send with its reply packet: the error it carries, or its response. */
function settleWith<Res>(packet: WritePacket, resolve: (response: Res) => void, reject: (err: unknown) => void): void {
  const error = replyError(packet);
  if (error) reject(error);
  else resolve(packet.response as Res);
}

/** Settles a send when its reply comes, or with didNotAnswer after `timeoutMs`. */
function settleWithin<Res>(
  reply: Promise<WritePacket>,
  timeoutMs: number,
  app: string,
  resolve: (response: Res) => void,
  reject: (err: unknown) => void,
): void {
  const timer = setTimeout(() => reject(didNotAnswer(app)), timeoutMs);
  void reply.then((packet) => {
    clearTimeout(timer);
    settleWith(packet, resolve, reject);
  });
}

/** The standalone MessageBus: same semantics as NATS (JSON-cloned payloads, Unavailable, timeouts). */
export class InProcessMessageBus extends MessageBus {
  constructor(readonly app: string) {
    super();
  }

  send<Req, Res>(message: MessageDef<Req, Res>, payload: Req, options?: SendOptions): Promise<Res> {
    const app = appOfPattern(message.pattern);
    const timeoutMs = options?.timeoutMs ?? message.timeoutMs;
    return withClientSpan(message.pattern, () => {
      const data = message.byReference ? payload : jsonClone(payload);
      const direct = broker().directResponder(message.pattern);
      if (direct) return askDirectly(message as MessageDef<unknown, Res>, direct, data, traceHeaders(), timeoutMs, app);
      const server = broker().responder(message.pattern);
      if (!server) return Promise.reject(unavailable(app));
      const reply = server.request(message.pattern, data, traceHeaders(), message.byReference);
      return new Promise<Res>((resolve, reject) => settleWithin(reply, timeoutMs, app, resolve, reject));
    });
  }

  serve<Req, Res>(message: MessageDef<Req, Res>, handler: (request: Req) => Res | Promise<Res>): () => void {
    return broker().serve(message.pattern, { app: this.app, handler: handler as (request: unknown) => unknown });
  }

  emit<P>(event: EventDef<P>, payload: P): void {
    void withClientSpan(event.subject, async () => {
      const headers = traceHeaders();
      const text = event.byReference ? '' : JSON.stringify(payload ?? null);
      const copy = () => (event.byReference ? (payload ?? null) : (JSON.parse(text) as unknown));
      await Promise.resolve(); // delivered after emit() returns, as over the wire
      if (event.delivery === 'queue') {
        for (const server of broker().queueReceivers(event.subject)) {
          server.event(event.subject, copy(), headers).catch((err: unknown) => {
            logError('event handler failed', err, { subject: event.subject });
          });
        }
      } else {
        for (const listener of broker().broadcastListeners(event.subject)) listener(copy(), headers);
      }
    }).catch((err: unknown) => {
      logError('could not emit event', err, { subject: event.subject });
    });
  }

  subscribe<P>(event: EventDef<P>, handler: (payload: P) => void | Promise<void>): () => void {
    return broker().listen(event.subject, (payload, headers) => {
      withRemoteSpan(event.subject, headers, async () => handler(payload as P)).catch((err: unknown) => {
        logError('event subscriber failed', err, { subject: event.subject });
      });
    });
  }
}
