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
  /** See MessageOptions.byReference. */
  readonly byReference: boolean;
}

export interface MessageOptions {
  readonly timeoutMs?: number;
  /**
   * Request and reply are plain JSON values (no Date, no undefined fields, no class
   * instances) that neither side changes once sent, so the in-process bus may hand them over
   * as they are instead of JSON-cloning them: indistinguishable from the wire, and the hot
   * paths (update check, request log) skip a copy. Over NATS nothing changes.
   */
  readonly byReference?: boolean;
}

export const DEFAULT_MESSAGE_TIMEOUT_MS = 10_000;

export function defineMessage<Req, Res>(pattern: string, options: MessageOptions = {}): MessageDef<Req, Res> {
  return { pattern, timeoutMs: options.timeoutMs ?? DEFAULT_MESSAGE_TIMEOUT_MS, byReference: options.byReference ?? false };
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
  /** As MessageOptions.byReference: the payload is plain JSON that nobody changes once emitted. */
  readonly byReference: boolean;
}

export function defineEvent<Payload>(subject: string, delivery: 'queue' | 'broadcast', options: { byReference?: boolean } = {}): EventDef<Payload> {
  return { subject, delivery, byReference: options.byReference ?? false };
}

export type EventPayload<E> = E extends EventDef<infer P> ? P : never;
