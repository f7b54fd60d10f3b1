import type { LoggerService } from '@nestjs/common';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * The request a log line is written for, passed explicitly: what a line is about is visible in
 * the call. (It was chosen over an AsyncLocalStorage on Node 20, where one such store slowed
 * every promise of the process; on Node 24 it costs little: `npm run bench:async-context`.)
 */
export interface LogRequest {
  readonly requestId: string;
}

/** The request an endpoint message (`{ctx: {requestId}}`) belongs to, for log lines about it. */
export function requestOfMessage(data: unknown): LogRequest | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const ctx = (data as { ctx?: unknown }).ctx;
  if (!ctx || typeof ctx !== 'object') return undefined;
  const requestId = (ctx as { requestId?: unknown }).requestId;
  return typeof requestId === 'string' && requestId !== '' ? { requestId } : undefined;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

let minimumLevel: LogLevel = (process.env.LOG_LEVEL as LogLevel) in LEVELS ? (process.env.LOG_LEVEL as LogLevel) : 'info';
let sink: (line: string) => void = (line) => process.stdout.write(line + '\n');

export function configureLogging(options: { level?: LogLevel; sink?: (line: string) => void }): void {
  if (options.level) minimumLevel = options.level;
  if (options.sink) sink = options.sink;
}

/**
 * The active span's ids for a log line (`trace_id`, `span_id`), so a line leads to its trace;
 * none without tracing (no context manager is registered then: the active context is the root).
 */
function traceFields(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getSpanContext(context.active());
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
}

/**
 * Structured JSON logs: one object per line with ts, level, app, msg, for a request's work its
 * id, and while a span is active its trace and span ids.
 */
export class JsonLogger implements LoggerService {
  constructor(
    private readonly app: string,
    private readonly requestId?: string,
  ) {}

  child(app: string): JsonLogger {
    return new JsonLogger(app, this.requestId);
  }

  /** This logger, with `request_id` on every line (unchanged without a request id). */
  forRequest(request: LogRequest | null | undefined): JsonLogger {
    return request?.requestId ? new JsonLogger(this.app, request.requestId) : this;
  }

  write(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
    if (LEVELS[level] < LEVELS[minimumLevel]) return;
    sink(
      JSON.stringify({
        ts: new Date().toISOString(),
        level,
        app: this.app,
        msg,
        ...(this.requestId ? { request_id: this.requestId } : {}),
        ...traceFields(),
        ...fields,
      }),
    );
  }

  info(msg: string, fields?: Record<string, unknown>): void {
    this.write('info', msg, fields);
  }
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.write('debug', msg, fields);
  }

  // LoggerService (Nest passes the context name as the last argument).
  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', String(message), contextField(rest));
  }
  error(message: unknown, ...rest: unknown[]): void {
    if (message instanceof Error) {
      // error(err, 'what failed', {fields}) keeps all: the description as msg, the error beside it.
      const what = typeof rest[0] === 'string' ? rest[0] : message.message;
      this.write('error', what, { ...objectField(rest), error: message.message, stack: message.stack });
    } else {
      const stack = rest.find((r) => typeof r === 'string' && r.includes('\n    at '));
      this.write('error', String(message), { ...contextField(rest), ...(stack ? { stack } : {}) });
    }
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', String(message), contextField(rest));
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('debug', String(message), contextField(rest));
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('error', String(message), { ...contextField(rest), fatal: true });
  }
}

/** Our calls pass fields as an object (`warn(msg, {key})`); Nest passes its context name last. */
function contextField(rest: unknown[]): Record<string, unknown> {
  const fields = objectField(rest);
  const last = rest[rest.length - 1];
  return typeof last === 'string' && !last.includes('\n') ? { ...fields, context: last } : { ...fields };
}

function objectField(rest: unknown[]): Record<string, unknown> | undefined {
  return rest.find((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r) && !(r instanceof Error));
}
