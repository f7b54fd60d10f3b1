import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { type CustomerInfo, type EndpointDef, GatewayErrors } from '@app/contracts';
import { CustomerDirectory } from '@app/platform';
import type { Access } from '../auth/access-policy.js';
import type { RouteTable } from '../routing/route-table.js';
import { endAtTurnEnd } from './end-of-turn.js';

/** How long a browser may keep a preflight's answer (seconds): bounds how long a removed origin keeps passing preflights. */
export const CORS_MAX_AGE_SECONDS = 600;
/** The request headers a cross-origin call may send. */
export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, X-CSRF-Token';

function listed(customer: CustomerInfo | null, origin: string): boolean {
  if (!customer || customer.status !== 'active' || !customer.corsOrigins) return false;
  const wanted = origin.toLowerCase();
  return customer.corsOrigins.some((o) => o.toLowerCase() === wanted);
}

/** The customer a public endpoint names in its path (the update check's `{domain}`), when it names one. */
function pathDomain(endpoint: EndpointDef, params: Readonly<Record<string, string>>): string | null {
  return endpoint.auth.kind === 'public' && typeof params.domain === 'string' ? params.domain : null;
}

/**
 * Cross-origin calls from browsers, per customer (docs/api.md "CORS"). A response to a request
 * acting on customer X (after authentication; or a public endpoint naming X's domain in its
 * path, the update check) whose Origin is in X's cors_origins carries
 * `Access-Control-Allow-Origin: <origin>` and `Vary: Origin`; nothing else does. Credentials
 * (cookies) are never allowed cross-origin.
 *
 * A preflight carries no credentials: for a public path naming a domain, that customer's list
 * decides; for every other path, the origin must be listed by some active customer (the union).
 * The actual request is then checked against its own customer's list as above.
 */
@Injectable()
export class CorsPolicy {
  constructor(@Inject(CustomerDirectory) private readonly customers: CustomerDirectory) {}

  /** After access is decided; only called when the request has an Origin header. */
  async allowResponse(res: ServerResponse, origin: string, endpoint: EndpointDef, params: Readonly<Record<string, string>>, access: Access): Promise<void> {
    const id = access.customer?.id ?? access.principal?.homeCustomer.id;
    const domain = id ? null : pathDomain(endpoint, params);
    if (!id && !domain) return;
    let customer: CustomerInfo | null;
    try {
      customer = id ? await this.customers.byId(id) : await this.customers.byDomain(domain!);
    } catch {
      return; // no CORS headers rather than failing the request
    }
    if (listed(customer, origin)) allowOrigin(res, origin);
  }

  /**
   * OPTIONS on a path that exists (true: answered): a preflight is answered 204 with the CORS
   * headers or refused 403 without any; a plain OPTIONS gets 204 with Allow. Other paths: false.
   */
  async answerOptions(req: IncomingMessage, res: ServerResponse, routes: RouteTable, path: string): Promise<boolean> {
    const lookup = routes.lookup('OPTIONS', path);
    if (lookup.kind !== 'method-not-allowed') return false;
    await this.answerPreflight(req, res, routes, path, lookup.allowed);
    return true;
  }

  private async answerPreflight(req: IncomingMessage, res: ServerResponse, routes: RouteTable, path: string, allowed: readonly string[]): Promise<void> {
    const origin = req.headers.origin;
    const requested = req.headers['access-control-request-method'];
    if (origin === undefined || typeof requested !== 'string') {
      // A plain OPTIONS: what the path supports.
      res.statusCode = 204;
      res.setHeader('Allow', allowed.join(', '));
      endAtTurnEnd(res);
      return;
    }
    if (!allowed.includes(requested.toUpperCase()) || !(await this.preflightAllows(routes, requested, path, origin)))
      throw GatewayErrors.cors_preflight_refused();
    res.statusCode = 204;
    allowOrigin(res, origin);
    res.setHeader('Access-Control-Allow-Methods', allowed.join(', '));
    res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
    endAtTurnEnd(res);
  }

  private async preflightAllows(routes: RouteTable, method: string, path: string, origin: string): Promise<boolean> {
    const lookup = routes.lookup(method, path);
    const domain = lookup.kind === 'found' ? pathDomain(lookup.match.endpoint, lookup.match.params) : null;
    if (domain) return listed(await this.customers.byDomain(domain), origin);
    return (await this.customers.corsOriginsOfAll()).has(origin.toLowerCase());
  }
}

function allowOrigin(res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  const vary = res.getHeader('Vary');
  res.setHeader('Vary', vary === undefined || vary === '' ? 'Origin' : `${String(vary)}, Origin`);
}
