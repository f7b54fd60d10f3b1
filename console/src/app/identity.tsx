import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Paths } from '../api/client';

export type Identity = Paths['/auth/me']['get']['responses'][200]['content']['application/json'];

export interface Me {
  readonly identity: Identity;
  /** The customer the pages act on: an administrator's pick, else the session's. */
  readonly customer: string;
  readonly admin: boolean;
  /** Whether the person's role (or administrator standing) allows the scope. */
  can(scope: string): boolean;
  /**
   * Administrators: act on another customer (`customer=` in the address and on each request),
   * or null for their own; shows `to` (default: the page shown now) for it.
   */
  actOn(customer: string | null, to?: string): void;
  /** Administrators: every customer's domain (the "Acting on" choices), once loaded. */
  readonly customers?: readonly string[];
}

export function makeMe(identity: Identity, actingOn: string | null, actOn: (customer: string | null, to?: string) => void, customers?: readonly string[]): Me {
  const admin = identity.admin === 'full' || identity.admin === 'read';
  return {
    identity,
    customer: actingOn ?? identity.customer,
    admin,
    can: (scope) => identity.scopes.includes(scope) || identity.scopes.includes('admin'),
    actOn,
    customers,
  };
}

export const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the logged-in console');
  return me;
}
