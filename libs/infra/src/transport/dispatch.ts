import type { BaseRpcContext, MessageHandler, WritePacket } from '@nestjs/microservices';
import { type Span, SpanStatusCode } from '@opentelemetry/api';
import { isObservable, lastValueFrom, type Observable } from 'rxjs';
import { ErrorCode, ServiceError } from '@app/contracts';
import { JsonLogger, logContext } from '../logging/logger.js';
import { withRemoteSpan } from '../telemetry/telemetry.js';

/**
 * What both server strategies (NATS and in-process) share: how a received message runs
 * through Nest's pipeline inside a span continuing the sender's trace and the log context
 * of the request it belongs to.
 */

export const transportLogger = new JsonLogger('transport');

/** An error log line with the error's message (and stack) as fields. */
export function logError(msg: string, err: unknown, fields: Record<string, unknown> = {}): void {
  const error = err instanceof Error ? { error: err.message, stack: err.stack } : { error: errorText(err) };
  transportLogger.write('error', msg, { ...fields, ...error });
}

/** The app a message belongs to: the first segment of its pattern (`firmware.get` → `firmware`). */
export function appOfPattern(pattern: string): string {
  const dot = pattern.indexOf('.');
  return dot > 0 ? pattern.slice(0, dot) : pattern;
}

export function unavailable(app: string): ServiceError {
  return new ServiceError(ErrorCode.Unavailable, `${app} unavailable`);
}

export function didNotAnswer(app: string): ServiceError {
  return new ServiceError(ErrorCode.Unavailable, `${app} did not answer in time`);
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

/** Endpoint messages carry `{ctx: {requestId}}`: their handlers log with that id. */
function requestIdOf(data: unknown): string | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const ctx = (data as { ctx?: unknown }).ctx;
  if (!ctx || typeof ctx !== 'object') return undefined;
  const requestId = (ctx as { requestId?: unknown }).requestId;
  return typeof requestId === 'string' && requestId !== '' ? requestId : undefined;
}

/** Runs work for a received message: in a server span continuing `headers`' trace, with the request id logged. */
export function runInbound<T>(name: string, headers: Record<string, string> | undefined, data: unknown, fn: (span: Span) => Promise<T>): Promise<T> {
  const requestId = requestIdOf(data);
  const traced = () => withRemoteSpan(name, headers, fn);
  return requestId ? logContext.run({ requestId }, traced) : traced();
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') return (err as { message: string }).message;
  return String(err);
}

/** The Nest Server methods (some protected) the shared dispatch needs, bound by each strategy. */
export interface ServerHooks {
  getHandlerByPattern(pattern: string): MessageHandler | null;
  transformToObservable(result: unknown): Observable<unknown>;
  handleRequest(context: BaseRpcContext, produce: () => Promise<Observable<unknown>>, respond: (packet: WritePacket) => Promise<unknown> | void): unknown;
  runWithProcessingHooks(context: BaseRpcContext, fn: (runEndHook: () => void) => Promise<void>): unknown;
}

const NO_MESSAGE_HANDLER = 'There is no matching message handler defined in the remote service.';

/**
 * A request through Nest's pipeline (guards, pipes, interceptors, filters), as ServerNats
 * does it; resolves once the last packet ({response}|{err}, isDisposed) has been published.
 */
export function processRequest(
  server: ServerHooks,
  pattern: string,
  data: unknown,
  context: BaseRpcContext,
  publish: (packet: WritePacket) => unknown,
  span: Span,
): Promise<void> {
  return new Promise<void>((resolve) => {
    let settled = false;
    const finish = () => {
      if (!settled) {
        settled = true;
        resolve();
      }
    };
    const respond = async (packet: WritePacket): Promise<void> => {
      if (packet.err !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(packet.err) });
      try {
        await publish(packet);
      } finally {
        if (packet.isDisposed) finish();
      }
    };
    const handler = server.getHandlerByPattern(pattern);
    if (!handler) {
      void respond({ status: 'error', err: NO_MESSAGE_HANDLER, isDisposed: true }).catch((err) => logError('could not publish a reply', err, { pattern }));
      return;
    }
    const failed = (err: unknown) => {
      // Nest's pipeline turns handler errors into an error stream; this is what escapes it.
      logError('message handler failed outside the pipeline', err, { pattern });
      void respond({ err: { code: ErrorCode.Internal, message: 'internal error' }, isDisposed: true }).catch(() => undefined);
    };
    try {
      const started = server.handleRequest(context, async () => server.transformToObservable(await handler(data, context)), respond);
      if (started instanceof Promise) started.catch(failed);
    } catch (err) {
      failed(err);
    }
  });
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
