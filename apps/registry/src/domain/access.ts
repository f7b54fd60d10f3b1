import { READ_SCOPES, type RequestContext, type Scope, scopeAllows } from '@app/contracts';

/**
 * Whether the caller may set tags (scope tags:write, or `admin`), for the endpoints whose own
 * scope is devices:write but which may carry tags (create, import). The gateway checked the
 * endpoint's scope; this is the second check, with the gateway's rule for a read-only
 * administrator acting on another customer (read scopes only).
 */
export function canWriteTags(ctx: RequestContext): boolean {
  const principal = ctx.principal;
  if (!principal) return false;
  const actingAsAdmin = ctx.customer !== null && ctx.customer.id !== principal.homeCustomer.id;
  const held: readonly Scope[] = actingAsAdmin && principal.admin === 'read' ? READ_SCOPES : principal.scopes;
  return scopeAllows(held, 'tags:write');
}
