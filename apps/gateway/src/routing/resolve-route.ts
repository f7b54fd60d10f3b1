import { ErrorCode, ServiceError } from '@app/contracts';
import type { RouteMatch, RouteTable } from './route-table.js';

/** The endpoint a request is for, or the error that answers it: 404, 400 (bad percent-encoding) or 405 with Allow. */
export function resolveRoute(routes: RouteTable, method: string, path: string): RouteMatch {
  const lookup = routes.lookup(method, path);
  switch (lookup.kind) {
    case 'found':
      return lookup.match;
    case 'not-found':
      throw ServiceError.notFound(`no endpoint ${method} ${path}`);
    case 'bad-path':
      throw ServiceError.badRequest('path is not valid percent-encoding');
    case 'method-not-allowed':
      throw new ServiceError(ErrorCode.MethodNotAllowed, `${method} is not allowed here`, { Allow: lookup.allowed.join(', ') });
  }
}
