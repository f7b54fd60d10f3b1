import { type AdminLevel, CommonErrors, type Principal, type RequestContext } from '@app/contracts';

/** Endpoints declared `principal` always carry one; a missing one is the gateway's bug, answered 401. */
export function requirePrincipal(ctx: RequestContext): Principal {
  if (!ctx.principal) throw CommonErrors.unauthenticated();
  return ctx.principal;
}

const ADMIN_RANK: Record<AdminLevel, number> = { '': 0, read: 1, full: 2 };

/** The lower of two admin levels (a credential never outranks its person's current standing). */
export function lowerAdminLevel(a: AdminLevel, b: AdminLevel): AdminLevel {
  return ADMIN_RANK[a] <= ADMIN_RANK[b] ? a : b;
}
