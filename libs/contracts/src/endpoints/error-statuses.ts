import type { CatalogedError } from '../errors/error-registry.js';
import type { EndpointDef, HttpMethod } from './endpoint.js';

/** The writes maintenance mode refuses (503) unless the endpoint is `allowedInMaintenance`. */
export const MAINTENANCE_REFUSED_METHODS: ReadonlySet<string> = new Set<HttpMethod>(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every error status an endpoint can answer: the ones its declaration lists (`errors`, what
 * its app decides) and the ones the gateway adds for any endpoint of its shape, so the
 * OpenAPI document declares each status a client can see (docs/api.md "Limits and errors"):
 * - 400 on every endpoint: a request without Host, a path that is not valid percent-encoding,
 *   parameters or a body that break the endpoint's rules, a request the HTTP parser refuses;
 *   431 on every endpoint too (request line and headers over 16 KiB);
 * - 401 and 403 where credentials are needed, and 404 where a customer is named (`customer=`
 *   of an administrator that names none);
 * - 413 and 415 where a body is read (JSON over its limit or not JSON; an upload over its
 *   limit or of a media type not accepted), and 413 for a console form (64 KiB at most)
 *   posted to an endpoint without a body of its own (any method but GET and HEAD);
 * - 429 where a per-client rate applies;
 * - 503 where an app answers (it may be unavailable or too slow), and on every write (POST, PUT,
 *   PATCH, DELETE) not `allowedInMaintenance` while maintenance mode is on;
 * - 403 on every endpoint: a request from a blocked address (docs/api.md "Maintenance mode and IP blocks").
 */
export function errorStatusesOf(endpoint: EndpointDef): number[] {
  const statuses = new Set<number>(endpoint.errors.map((error) => error.status));
  statuses.add(400).add(403).add(431);
  if (endpoint.auth.kind !== 'public') statuses.add(401).add(403);
  if (endpoint.auth.kind === 'principal' && endpoint.auth.tenant) statuses.add(404);
  switch (endpoint.body.kind) {
    case 'json':
    case 'multipart':
      statuses.add(413).add(415);
      break;
    case 'stream':
      statuses.add(413);
      if (endpoint.body.contentTypes) statuses.add(415);
      break;
    case 'none':
      if (endpoint.method !== 'GET' && endpoint.method !== 'HEAD') statuses.add(413);
      break;
  }
  if (endpoint.rateLimit) statuses.add(429);
  if (endpoint.target.kind === 'message') statuses.add(503);
  if (MAINTENANCE_REFUSED_METHODS.has(endpoint.method) && !endpoint.allowedInMaintenance) statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

/** The catalog errors an endpoint declares it may raise (the common ones its shape implies are not listed). */
export function declaredErrorsOf(endpoint: EndpointDef): CatalogedError[] {
  return [...endpoint.errors];
}
