import type { EventDef, MessageDef } from '@app/contracts';

export interface SendOptions {
  /** Overrides the message's own timeout. */
  readonly timeoutMs?: number;
}

/**
 * How apps talk: request-reply messages and events, all declared in @app/contracts.
 * Adapters: NATS (request-reply in queue groups; broadcast subjects without a group) and an
 * in-process broker (standalone). Payloads are JSON-cloned by both, so code behaves the same
 * (in process, messages and events declared `byReference` are handed over uncopied: plain JSON
 * values nobody changes once sent).
 *
 * Errors: a ServiceError thrown by the handler arrives as the same ServiceError; no
 * responder (app down) becomes ServiceError Unavailable within 2 s; a reply slower than the
 * timeout becomes ServiceError Unavailable too ("<app> did not answer").
 */
export abstract class MessageBus {
  abstract send<Req, Res>(message: MessageDef<Req, Res>, payload: Req, options?: SendOptions): Promise<Res>;

  /**
   * Answers a message with `handler`, without Nest's per-message pipeline (no guards, pipes,
   * interceptors or filters): for the hottest path, the update check, which uses none of them.
   * Errors cross as with a controller: a ServiceError arrives as the same ServiceError, anything
   * else as Internal (and is logged). NATS: a subscription in the app's queue group, answering
   * in Nest's packet format; in process: a direct call. Returns a function that stops serving.
   */
  abstract serve<Req, Res>(message: MessageDef<Req, Res>, handler: (request: Req) => Res | Promise<Res>): () => void;

  /** Fire and forget. Queue events reach one replica of each subscribing app; broadcast events every subscriber. */
  abstract emit<P>(event: EventDef<P>, payload: P): void;

  /**
   * Subscribes this process to a broadcast event (every replica receives it). Queue events
   * are handled with Nest's @EventPattern in the app instead. Returns an unsubscribe function.
   */
  abstract subscribe<P>(event: EventDef<P>, handler: (payload: P) => void | Promise<void>): () => void;

  /** Whether messages can be sent and events arrive now (readiness); the in-process bus always can. */
  connected(): boolean {
    return true;
  }
}
