import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService } from '@nestjs/common';

/** The request id of the work in progress, so every log line of a request carries it. */
export const logContext = new AsyncLocalStorage<{ requestId: string }>();

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

let minimumLevel: LogLevel = (process.env.LOG_LEVEL as LogLevel) in LEVELS ? (process.env.LOG_LEVEL as LogLevel) : 'info';
let sink: (line: string) => void = (line) => process.stdout.write(line + '\n');

export function configureLogging(options: { level?: LogLevel; sink?: (line: string) => void }): void {
  if (options.level) minimumLevel = options.level;
  if (options.sink) sink = options.sink;
}

/** Structured JSON logs: one object per line with ts, level, app, msg and the request id. */
export class JsonLogger implements LoggerService {
  constructor(private readonly app: string) {}

  child(app: string): JsonLogger {
    return new JsonLogger(app);
  }

  write(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
    if (LEVELS[level] < LEVELS[minimumLevel]) return;
    const requestId = logContext.getStore()?.requestId;
    sink(JSON.stringify({ ts: new Date().toISOString(), level, app: this.app, msg, ...(requestId ? { request_id: requestId } : {}), ...fields }));
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
    const fields = contextField(rest);
    if (message instanceof Error) {
      // error(err, 'what failed') keeps both: the description as msg, the error beside it.
      const what = typeof rest[0] === 'string' ? rest[0] : message.message;
      this.write('error', what, { error: message.message, stack: message.stack });
    }
    else {
      const stack = rest.find((r) => typeof r === 'string' && r.includes('\n    at '));
      this.write('error', String(message), { ...fields, ...(stack ? { stack } : {}) });
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

function contextField(rest: unknown[]): Record<string, unknown> {
  const last = rest[rest.length - 1];
  return typeof last === 'string' && !last.includes('\n') ? { context: last } : {};
}
