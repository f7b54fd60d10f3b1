import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ClientAddressOf } from './client-address.js';

/** A client's X-Request-Id is kept when it is this safe; otherwise the gateway makes one. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** What the gateway learns about a request while answering it (request log, metrics, traces). */
export interface RequestState {
  readonly requestId: string;
  /** performance.now() when the request arrived (a double: no BigInt per request). */
  readonly started: number;
  /** The client address (client-address.ts: TRUSTED_PROXIES), read once. */
  readonly ip: string;
  route: string;
  domain: string | null;
  /** `domain` is only the one the path names (the update check's): counted for it only when it is known to exist (KnownCustomerDomains). */
  domainFromPath: boolean;
  actor: string | null;
  /** RequestLogEntry.refusal: set only by the refusals the security detectors count. */
  refusal: string | null;
  bytesIn: number;
  /** The request's log entry and metrics are recorded (once, on 'close'). */
  done: boolean;
}

/** The route of a request no endpoint takes (request log, metrics). */
export const UNMATCHED_ROUTE = '(unmatched)';

export function newRequestState(req: IncomingMessage, clientAddress: ClientAddressOf): RequestState {
  const header = req.headers['x-request-id'];
  const requestId = typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : randomUUID();
  return {
    requestId,
    started: performance.now(),
    ip: clientAddress(req),
    route: UNMATCHED_ROUTE,
    domain: null,
    domainFromPath: false,
    actor: null,
    refusal: null,
    bytesIn: 0,
    done: false,
  };
}
