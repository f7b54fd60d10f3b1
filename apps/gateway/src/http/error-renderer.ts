import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { type EndpointDef, ERROR_STATUS, ServiceError, type ErrorMode, UNAVAILABLE_RETRY_AFTER_SECONDS } from '@app/contracts';
import { errorPage } from '../pages/error-page.js';
import { PAGE_HEADERS } from '../pages/page-headers.js';
import { endAtTurnEnd } from './end-of-turn.js';

/** How a failure is answered: in the endpoint's error mode, or as a page (pageWanted). */
export type FailureMode = ErrorMode | 'page';

export interface ErrorRenderContext {
  readonly mode: FailureMode;
  /** The request sent `Accept: application/json`. */
  readonly wantsJson: boolean;
  readonly path: string;
  readonly requestId: string;
  /** PUBLIC_URL: problem+json's `type` is the code's entry on its /docs/errors page. */
  readonly baseUrl: string;
  readonly head: boolean;
  /** The refusal of a blocked address (a page then says so, and what to do). */
  readonly addressBlocked?: boolean;
}

/**
 * The HTTP side of ServiceError's translation (docs/api.md "Limits and errors"): text mode is one line
 * `<status> <reason phrase>: <message>`; JSON mode is application/problem+json, whose `code` is
 * the error's catalog code and `type` its documentation; a page's is a short HTML page.
 */
export function renderError(res: ServerResponse, error: ServiceError, ctx: ErrorRenderContext): void {
  const status = ERROR_STATUS[error.code];
  const reason = STATUS_CODES[status] ?? 'Error';
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  if (status === 503 && !res.hasHeader('Retry-After')) res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  let body: string;
  if (ctx.mode === 'page') {
    for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    body = errorPage(status, reason, error.message, ctx.addressBlocked === true);
  } else if (ctx.mode === 'text' && !ctx.wantsJson) {
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    body = `${status} ${reason}: ${error.message}\n`;
  } else {
    res.setHeader('Content-Type', 'application/problem+json');
    body = JSON.stringify({
      type: errorTypeUri(ctx.baseUrl, error.reason),
      title: reason,
      status,
      detail: error.message,
      instance: ctx.path,
      request_id: ctx.requestId,
      code: error.reason,
    });
  }
  res.statusCode = status;
  res.setHeader('Content-Length', Buffer.byteLength(body));
  endAtTurnEnd(res, ctx.head ? undefined : body);
}

/** problem+json's `type`: the code's entry on the /docs/errors page (docs/api.md "Limits and errors"). */
export function errorTypeUri(baseUrl: string, code: string): string {
  return `${baseUrl}/docs/errors#${code}`;
}

export function wantsJson(accept: string | undefined): boolean {
  return !!accept && /\bapplication\/(?:problem\+)?json\b/i.test(accept);
}

/**
 * Whether a failure is answered as a page: a request for one of the pages the gateway serves
 * (text/html on success) from a browser (Accept names text/html, not JSON), which would show
 * problem+json as raw text.
 */
export function pageWanted(endpoint: EndpointDef, accept: string | undefined): boolean {
  return isPage(endpoint) && !!accept && /\btext\/html\b/i.test(accept) && !wantsJson(accept);
}

/** One of the HTML pages the gateway serves itself (the console, /login, /docs, /health). */
export function isPage(endpoint: EndpointDef): boolean {
  return endpoint.target.kind === 'gateway' && endpoint.target.handler === 'page' && endpoint.responses[200]?.contentType === 'text/html';
}

export function asServiceError(err: unknown): ServiceError {
  return ServiceError.is(err) ? err : ServiceError.fromSerialized(undefined);
}
