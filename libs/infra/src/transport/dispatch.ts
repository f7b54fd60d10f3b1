import type { BaseRpcContext, MessageHandler, WritePacket } from '@nestjs/microservices';
import { type Span, SpanStatusCode } from '@opentelemetry/api';
import { firstValueFrom, isObservable, lastValueFrom } from 'rxjs';
import { ErrorCode, ServiceError, TransportError, TransportErrorCode } from '@app/contracts';
import { JsonLogger, type LogRequest, requestOfMessage } from '../logging/logger.js';

/**
 * What both server strategies (NATS and in-process) share: how a received message runs
 * through Nest's pipeline inside a span continuing the sender's trace, and how its failures
 * are logged with the id of the request it belongs to.
 */

export const transportLogger = new JsonLogger('transport');

/** An error log line with the error's message (and stack) as fields. */
export function logError(msg: string, err: unknown, fields: Record<string, unknown> = {}, request?: LogRequest): void {
  const error = err instanceof Error ? { error: err.message, stack: err.stack } : { error: errorText(err) };
  transportLogger.forRequest(request).write('error', msg, { ...fields, ...error });
}

/** The app a message belongs to: the first segment of its pattern (`firmware.get` → `firmware`). */
export function appOfPattern(pattern: string): string {
  const dot = pattern.indexOf('.');
  return dot > 0 ? pattern.slice(0, dot) : pattern;
}

/** No app serves the pattern: nobody received the request. */
export function unavailable(app: string): ServiceError {
  return new TransportError(TransportErrorCode.NoReceiver, app);
}

/** The request went out but its answer did not come in time. */
export function didNotAnswer(app: string): ServiceError {
  return new TransportError(TransportErrorCode.NoAnswer, app);
}

/** JSON round trip, as over the wire: Dates become strings, undefined fields disappear. */
export function jsonClone<T>(value: T): T {
  const text = JSON.stringify(value);
  return (text === undefined ? undefined : JSON.parse(text)) as T;
}

/** An `err` of a reply packet, turned back into the ServiceError the handler threw. */
export function replyError(packet: WritePacket | undefined): ServiceError | null {
  if (!packet || packet.err === undefined || packet.err === null) return null;
  return ServiceError.fromSerialized(packet.err);
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') return (err as { message: string }).message;
  return String(err);
}

/** The Nest Server methods (some protected) the shared dispatch needs, bound by each strategy. */
export interface ServerHooks {
  getHandlerByPattern(pattern: string): MessageHandler | null;
  runWithProcessingHooks(context: BaseRpcContext, fn: (runEndHook: () => void) => Promise<void>): unknown;
}

const NO_MESSAGE_HANDLER = 'There is no matching message handler defined in the remote service.';

/**
 * A request through the handler Nest built for the pattern (guards, pipes, interceptors and
 * the exception filter are inside it: a failure comes back as an Observable that errors with
 * the filter's serialized error). One reply packet, the first value, always `isDisposed`:
 * replies are request-reply, never streams. Nest's Server.handleRequest would wrap the same
 * call in several Observables and a nextTick queue; the update check pays for every step, so
 * this is the direct form. Resolves once the reply has been published.
 */
export async function processRequest(
  server: ServerHooks,
  pattern: string,
  data: unknown,
  context: BaseRpcContext,
  publish: (packet: WritePacket) => unknown,
  span: Span,
): Promise<void> {
  const handler = server.getHandlerByPattern(pattern);
  let packet: WritePacket;
  if (!handler) {
    packet = { err: NO_MESSAGE_HANDLER, isDisposed: true };
  } else {
    try {
      let result: unknown = await handler(data, context);
      if (isObservable(result)) result = await firstValueFrom(result, { defaultValue: undefined });
      packet = { response: result, isDisposed: true };
    } catch (err) {
      if (err instanceof Error) {
        // Not the filter's output: something failed outside Nest's pipeline.
        logError('message handler failed outside the pipeline', err, { pattern }, requestOfMessage(data));
        packet = { err: { code: ErrorCode.Internal, message: 'internal error' }, isDisposed: true };
      } else {
        packet = { err, isDisposed: true };
      }
    }
  }
  if (packet.err !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(packet.err) });
  try {
    await publish(packet);
  } catch (err) {
    logError('could not publish a reply', err, { pattern }, requestOfMessage(data));
  }
}

/**
 * The reply packet of a MessageBus.serve handler: its value, or its error as a controller's
 * would cross. A handler that answers at once (not with a promise) gets its packet at once.
 */
export function directReply(pattern: string, handler: (request: unknown) => unknown, data: unknown, span: Span): WritePacket | Promise<WritePacket> {
  let result: unknown;
  try {
    result = handler(data);
  } catch (err) {
    return failedReply(pattern, err, span, data);
  }
  if (result instanceof Promise) {
    return result.then(
      (response: unknown) => ({ response, isDisposed: true }),
      (err: unknown) => failedReply(pattern, err, span, data),
    );
  }
  return { response: result, isDisposed: true };
}

function failedReply(pattern: string, err: unknown, span: Span, data: unknown): WritePacket {
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(err) });
  if (ServiceError.is(err)) return { err: err.toJSON(), isDisposed: true };
  logError('message handler failed', err, { pattern }, requestOfMessage(data));
  return { err: { code: ErrorCode.Internal, message: 'internal error' }, isDisposed: true };
}

/**
 * An event through Nest's pipeline, as Server.handleEvent does it, but awaited to the end
 * of the handler's stream so the span covers the work and failures are logged.
 */
export function processEvent(server: ServerHooks, pattern: string, data: unknown, context: BaseRpcContext, span: Span): Promise<void> {
  const handler = server.getHandlerByPattern(pattern);
  if (!handler) {
    transportLogger.write('error', 'no event handler', { subject: pattern });
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    const failed = (err: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(err) });
      transportLogger.warn('event handler failed', { subject: pattern, error: errorText(err) });
    };
    try {
      const started = server.runWithProcessingHooks(context, async (runEndHook) => {
        try {
          const result: unknown = await handler(data, context);
          if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
        } catch (err) {
          failed(err);
        } finally {
          runEndHook();
          resolve();
        }
      });
      if (started instanceof Promise) started.catch((err) => (failed(err), resolve()));
    } catch (err) {
      failed(err);
      resolve();
    }
  });
}

/** Counts handlers at work, so a closing server can let them finish. */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  track<T>(work: Promise<T>): Promise<T> {
    this.running.add(work);
    const done = () => this.running.delete(work);
    work.then(done, done);
    return work;
  }

  /** Resolves when every tracked handler has finished, or after `limitMs`. */
  async settle(limitMs: number): Promise<void> {
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, limitMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }
}

/** Lower-cased header record from NATS headers (or anything iterable the same way). */
export function headerRecord(headers: { keys(): string[]; get(key: string): string } | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (!headers) return record;
  for (const key of headers.keys()) record[key.toLowerCase()] = headers.get(key);
  return record;
}
