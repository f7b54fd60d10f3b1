/**
 * A request-reply message between apps. The pattern is the NATS subject; the type
 * parameters tie the request and reply shapes to it so both ends agree at compile time.
 */
export interface MessageDef<Req, Res> {
  readonly pattern: string;
  /** Phantom fields: never set, only carry the types. */
  readonly __request?: Req;
  readonly __reply?: Res;
  /** Longest the caller waits for a reply (ms). The app being down is detected sooner. */
  readonly timeoutMs: number;
}

export const DEFAULT_MESSAGE_TIMEOUT_MS = 10_000;

export function defineMessage<Req, Res>(pattern: string, options: { timeoutMs?: number } = {}): MessageDef<Req, Res> {
  return { pattern, timeoutMs: options.timeoutMs ?? DEFAULT_MESSAGE_TIMEOUT_MS };
}

export type MessageRequest<M> = M extends MessageDef<infer Req, unknown> ? Req : never;
export type MessageReply<M> = M extends MessageDef<unknown, infer Res> ? Res : never;

/**
 * A one-way event. `delivery` says who receives it:
 * - `queue`: one replica of each subscribing app (work to do once, e.g. store request logs);
 * - `broadcast`: every replica of every subscribing process (cache invalidation).
 */
export interface EventDef<Payload> {
  readonly subject: string;
  readonly delivery: 'queue' | 'broadcast';
  readonly __payload?: Payload;
}

export function defineEvent<Payload>(subject: string, delivery: 'queue' | 'broadcast'): EventDef<Payload> {
  return { subject, delivery };
}

export type EventPayload<E> = E extends EventDef<infer P> ? P : never;
