import { CommonErrors, type ErrorMode, GatewayErrors, ServiceError } from '@app/contracts';
import type { RouteMatch, RouteTable } from './route-table.js';

/** A request no endpoint takes, answered in the error mode of the endpoints on its path (json when none). */
export class RouteRefusal extends ServiceError {
  constructor(
    error: ServiceError,
    readonly errorMode: ErrorMode,
  ) {
    super(error.code, error.message, error.headers, error.reason);
  }
}

/** The endpoint a request is for, or the refusal that answers it: 404, 400 (bad percent-encoding) or 405 with Allow. */
export function resolveRoute(routes: RouteTable, method: string, path: string): RouteMatch {
  const lookup = routes.lookup(method, path);
  switch (lookup.kind) {
    case 'found':
      return lookup.match;
    case 'not-found':
      throw new RouteRefusal(CommonErrors.route_not_found({ method, path }), 'json');
    case 'bad-path':
      throw new RouteRefusal(GatewayErrors.path_encoding_invalid(), lookup.endpoint.errorMode);
    case 'method-not-allowed':
      throw new RouteRefusal(CommonErrors.method_not_allowed({ method }, { Allow: lookup.allowed.join(', ') }), lookup.errorMode);
  }
}
