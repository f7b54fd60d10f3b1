import {
  type AdminLevel,
  type Bundle,
  BUNDLE_SCOPES,
  CommonErrors,
  IdentityErrors,
  type Principal,
  type RequestContext,
  type Role,
  ROLE_SCOPES,
  type Scope,
  scopeAllows,
} from '@app/contracts';

/** Members of the operator customer are administrators: viewers read-only, editors and owners full. */
export function adminLevelFor(operatorRole: Role | null): AdminLevel {
  if (operatorRole === 'viewer') return 'read';
  if (operatorRole === 'editor' || operatorRole === 'owner') return 'full';
  return '';
}

/** The scopes a role gives in its customer; none without a role. */
export function roleScopes(role: Role | null): Scope[] {
  return role ? [...ROLE_SCOPES[role]] : [];
}

/**
 * What a person holds in a customer, the way the gateway builds a session principal: the
 * role's scopes, plus `admin` for a full administrator. A read-only administrator without a
 * role there holds the :read scopes. The session access token's `scp` carries only the role
 * scopes; the gateway adds `admin` from `adm` itself.
 */
export function personScopes(role: Role | null, admin: AdminLevel): Scope[] {
  const scopes = new Set<Scope>(role ? ROLE_SCOPES[role] : admin === 'read' ? ROLE_SCOPES.viewer : []);
  if (admin === 'full') scopes.add('admin');
  return [...scopes];
}

export interface TokenCaller {
  readonly scopes: readonly Scope[];
  readonly admin: AdminLevel;
}

/**
 * A token never has more scopes than the person who created it. The `admin` bundle:
 * full administrators only, and only on the operator customer. Full administrators may ask
 * for any other bundle on any customer; everyone else only for bundles within their scopes.
 */
export function bundleWithinCeiling(bundle: Bundle, caller: TokenCaller, customerIsOperator: boolean): boolean {
  if (bundle === 'admin') return caller.admin === 'full' && customerIsOperator;
  if (caller.admin === 'full') return true;
  return BUNDLE_SCOPES[bundle].every((scope) => scopeAllows(caller.scopes, scope));
}

export function assertBundleWithinCeiling(bundle: Bundle, caller: TokenCaller, customerIsOperator: boolean): void {
  if (!bundleWithinCeiling(bundle, caller, customerIsOperator)) throw IdentityErrors.token_bundle_exceeds_scopes();
}

/** Who sees every token of a customer: members:manage, or any administrator; others see their own. */
export function canSeeAllTokens(caller: TokenCaller): boolean {
  return caller.admin !== '' || caller.scopes.includes('members:manage') || caller.scopes.includes('admin');
}

/** Who may revoke any token of a customer: members:manage, or a full administrator. */
export function canRevokeAnyToken(caller: TokenCaller): boolean {
  return caller.admin === 'full' || caller.scopes.includes('members:manage') || caller.scopes.includes('admin');
}

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

/** In an audit entry, the actor of an administrator action carries an `admin:` prefix. */
export function adminActor(actor: string): string {
  return actor.startsWith('admin:') ? actor : `admin:${actor}`;
}
