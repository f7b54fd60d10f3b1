import type { CustomerId } from '@app/contracts';

/**
 * Tenant enforcement in the type system (after Novu's enforce.ts): every query of a
 * tenant-owned table takes its filter as `Tenant<...>`, whose `customerId` is the branded
 * CustomerId. A call that forgets the tenant, or passes a plain string (a domain, a user id),
 * does not compile.
 */
export interface TenantScope {
  readonly customerId: CustomerId;
}

export type Tenant<T extends object = Record<never, never>> = T & TenantScope;
