import type { AdminLevel, Scope } from './scopes.js';

/** Customer ids are UUIDs; the brand stops a user id or domain from being passed by mistake. */
export type CustomerId = string & { readonly __brand: 'CustomerId' };
export const asCustomerId = (id: string): CustomerId => id as CustomerId;

export interface CustomerRef {
  readonly id: CustomerId;
  readonly domain: string;
  readonly isSandbox: boolean;
}

export type PrincipalKind = 'token' | 'session';

/** Who made an authenticated request, as the gateway established it. */
export interface Principal {
  readonly kind: PrincipalKind;
  readonly userId: string;
  /** jti of the API token, or the session id. */
  readonly credentialId: string;
  /** The credential's own customer (before any `customer=` selection). */
  readonly homeCustomer: CustomerRef;
  readonly scopes: readonly Scope[];
  readonly admin: AdminLevel;
}

/**
 * What every message handler receives about the request beside its own payload. Built by
 * the gateway; apps trust it because only the gateway can publish on the bus.
 */
export interface RequestContext {
  readonly requestId: string;
  readonly principal: Principal | null;
  /** The customer the request acts on (token's customer, or `customer=` for administrators). */
  readonly customer: CustomerRef | null;
  /** Who acts: `token:<id>` or `user:<id>` (`anonymous` on public endpoints). Stored as uploaded_by/created_by. */
  readonly actor: string;
  /** The actor for audit entries: `admin:`-prefixed when an administrator acts on another customer. */
  readonly auditActor: string;
  readonly ip: string;
  readonly userAgent: string;
  /** The service's public base address, for absolute links. */
  readonly baseUrl: string;
}

/** A RequestContext whose customer is known: what tenant-scoped handlers receive. */
export interface TenantRequestContext extends RequestContext {
  readonly customer: CustomerRef;
}

export function requireTenant(ctx: RequestContext): TenantRequestContext {
  if (!ctx.customer) throw new Error('request has no customer: endpoint declaration must require one');
  return ctx as TenantRequestContext;
}
