import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { ERROR_STATUS, ServiceError, type ErrorMode } from '@app/contracts';
import { endAtTurnEnd } from './end-of-turn.js';

export interface ErrorRenderContext {
  readonly mode: ErrorMode;
  /** The request sent `Accept: application/json`. */
  readonly wantsJson: boolean;
  readonly path: string;
  readonly requestId: string;
  readonly head: boolean;
}

/**
 * The HTTP side of ServiceError's translation (docs/api.md "Limits and errors"): text mode is one line
 * `<status> <reason phrase>: <message>`; JSON mode is application/problem+json.
 */
export function renderError(res: ServerResponse, error: ServiceError, ctx: ErrorRenderContext): void {
  const status = ERROR_STATUS[error.code];
  const reason = STATUS_CODES[status] ?? 'Error';
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  let body: string;
  if (ctx.mode === 'text' && !ctx.wantsJson) {
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    body = `${status} ${reason}: ${error.message}\n`;
  } else {
    res.setHeader('Content-Type', 'application/problem+json');
    body = JSON.stringify({ type: 'about:blank', title: reason, status, detail: error.message, instance: ctx.path, request_id: ctx.requestId });
  }
  res.statusCode = status;
  res.setHeader('Content-Length', Buffer.byteLength(body));
  endAtTurnEnd(res, ctx.head ? undefined : body);
}

export function wantsJson(accept: string | undefined): boolean {
  return !!accept && /\bapplication\/(?:problem\+)?json\b/i.test(accept);
}

export function asServiceError(err: unknown): ServiceError {
  return ServiceError.is(err) ? err : ServiceError.fromSerialized(undefined);
}
