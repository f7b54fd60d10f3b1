import type { IncomingMessage } from 'node:http';
import { type EndpointCall, type EndpointDef, type RequestContext, SESSION_COOKIES, type StagedFile } from '@app/contracts';
import type { Access } from '../auth/access-policy.js';
import { pickHeaders, userAgentOf } from './request-headers.js';
import type { RequestState } from './request-state.js';

/**
 * The message an endpoint's app receives over the bus: who calls for whom (the request
 * context), the validated input, what was staged, the forwarded headers, and for the
 * refresh endpoint its cookie and CSRF token (the app checks those itself).
 */
export function endpointCall(
  endpoint: EndpointDef,
  req: IncomingMessage,
  ctx: RequestContext,
  params: unknown,
  query: unknown,
  body: unknown,
  staged: StagedFile | undefined,
  contentType: string,
  stagedParts: Record<string, StagedFile> | undefined,
  cookies: Record<string, string>,
  csrfToken: string | undefined,
): EndpointCall<unknown, unknown, unknown> {
  return {
    ctx,
    params,
    query,
    body,
    ...(staged ? { file: staged, contentType } : {}),
    ...(stagedParts ? { files: stagedParts } : {}),
    ...(endpoint.forwardHeaders ? { headers: pickHeaders(req, endpoint.forwardHeaders) } : {}),
    ...(endpoint.forwardTarget ? { target: requestTarget(req.url ?? '/') } : {}),
    ...(endpoint.auth.kind === 'refresh' ? { refresh: { token: cookies[SESSION_COOKIES.refresh] ?? null, csrfToken: csrfToken ?? null } } : {}),
  };
}

/** The request target's path and query (after `?`; '' for none) as sent, not decoded. */
function requestTarget(rawUrl: string): { path: string; query: string } {
  const queryAt = rawUrl.indexOf('?');
  return queryAt === -1 ? { path: rawUrl, query: '' } : { path: rawUrl.slice(0, queryAt), query: rawUrl.slice(queryAt + 1) };
}

export function requestContext(req: IncomingMessage, state: RequestState, access: Access, baseUrl: string): RequestContext {
  const actor = state.actor ?? 'anonymous';
  return {
    requestId: state.requestId,
    principal: access.principal,
    customer: access.customer,
    actor,
    auditActor: access.actingAsAdmin ? `admin:${actor}` : actor,
    ip: state.ip,
    userAgent: userAgentOf(req),
    baseUrl,
  };
}
