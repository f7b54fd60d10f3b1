import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { CSRF_FIELD, CSRF_HEADER, type EndpointDef, type Principal, REFUSAL_CUSTOMER_NOT_FOUND } from '@app/contracts';
import type { ParsedBody } from '../http/http-io.js';
import { serializeCookie } from '../http/http-io.js';
import { headerValue, userAgentOf } from '../http/request-headers.js';
import type { RequestState } from '../http/request-state.js';
import { type Access, AccessPolicy, anonymousAccess } from './access-policy.js';

/**
 * The access decision of one request, from its endpoint's declared requirement and the
 * request's credentials. A public endpoint called without credentials (the update check) is
 * decided at once, with no AccessRequest, callback or promise.
 */
@Injectable()
export class RequestAccess {
  constructor(private readonly policy: AccessPolicy) {}

  decide(
    endpoint: EndpointDef,
    method: string,
    req: IncomingMessage,
    res: ServerResponse,
    state: RequestState,
    cookies: Record<string, string>,
    csrfToken: string | undefined,
    search: URLSearchParams,
  ): Access | Promise<Access> {
    const authorization = headerValue(req, 'authorization');
    return (
      anonymousAccess(endpoint.auth, { authorization, cookies }) ??
      this.policy.check({
        auth: endpoint.auth,
        method,
        credentials: { authorization, cookies, client: { ip: state.ip, userAgent: userAgentOf(req), requestId: state.requestId } },
        // Renewed session cookies reach the browser whatever the outcome: the refresh token has rotated.
        onRenewed: (renewed) => res.setHeader('Set-Cookie', renewed.map(serializeCookie)),
        // `customer=` without a value names no customer: the caller's own.
        customerParam: search.get('customer') || undefined,
        csrfToken,
        onAuthenticated: (principal) => {
          state.domain = principal.homeCustomer.domain;
          state.domainFromPath = false;
          state.actor = actorOf(principal);
        },
        onCustomerRefused: () => {
          state.refusal = REFUSAL_CUSTOMER_NOT_FOUND;
        },
      })
    );
  }
}

/** The CSRF token of a request: the header, else the `csrf` query parameter, else the form field. */
export function csrfTokenOf(req: IncomingMessage, search: URLSearchParams, body: ParsedBody): string | undefined {
  return headerValue(req, CSRF_HEADER) ?? search.get(CSRF_FIELD) ?? (body.kind === 'form' ? body.fields[CSRF_FIELD] : undefined);
}

/**
 * Notes who is calling, for whom (request log, metrics): the customer acted on, else the
 * credential's, else the one a public path names (kept from routing: publicPathDomain).
 */
export function recordCaller(state: RequestState, access: Access): void {
  const acted = access.customer?.domain ?? access.principal?.homeCustomer.domain;
  if (acted !== undefined) {
    state.domain = acted;
    state.domainFromPath = false;
  }
  state.actor = actorOf(access.principal);
}

/**
 * The customer a public endpoint names in its path (the update check's `{domain}`), lower-cased
 * as customers are stored; null for every other endpoint. A request naming a customer that
 * does not exist is answered 404 and recorded without it (RequestFailure).
 */
export function publicPathDomain(endpoint: EndpointDef, params: Readonly<Record<string, string>>): string | null {
  return endpoint.auth.kind === 'public' && typeof params.domain === 'string' ? params.domain.toLowerCase() : null;
}

export function actorOf(principal: Principal | null): string | null {
  if (!principal) return null;
  return principal.kind === 'token' ? `token:${principal.credentialId}` : `user:${principal.userId}`;
}
