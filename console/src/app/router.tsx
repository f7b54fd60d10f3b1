import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';

export interface Location {
  readonly path: string;
  readonly search: URLSearchParams;
}

const current = (): Location => ({ path: window.location.pathname, search: new URLSearchParams(window.location.search) });
const listeners = new Set<(location: Location) => void>();

/**
 * The query parameter naming the customer an administrator acts on (docs/console.md "Acting
 * on a customer"): in the address, so a reload, a bookmark or a link opened in a new tab acts
 * on the same customer.
 */
export const CUSTOMER_PARAM = 'customer';

/** A console address carrying the acted-on customer of `from` (the page shown now) unless it names one itself. */
export function keepCustomer(to: string, from: URLSearchParams = new URLSearchParams(window.location.search)): string {
  const customer = from.get(CUSTOMER_PARAM);
  if (!customer || !to.startsWith('/console')) return to;
  const url = new URL(to, window.location.origin);
  if (url.searchParams.has(CUSTOMER_PARAM)) return to;
  url.searchParams.set(CUSTOMER_PARAM, customer);
  return url.pathname + url.search + url.hash;
}

/**
 * Moves to another console page without reloading (history entry, or `replace` for filter
 * changes), still acting on the page's customer; `exact` goes to `to` as it is (choosing
 * another customer, or none).
 */
export function navigate(to: string, options: { replace?: boolean; exact?: boolean } = {}): void {
  if (!options.exact) to = keepCustomer(to);
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  const location = current();
  for (const listener of listeners) listener(location);
  if (!options.replace) window.scrollTo(0, 0);
}

const LocationContext = createContext<Location>(current());

export function LocationProvider({ children }: { children: ComponentChildren }) {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const onPop = () => setLocation(current());
    listeners.add(setLocation);
    window.addEventListener('popstate', onPop);
    return () => {
      listeners.delete(setLocation);
      window.removeEventListener('popstate', onPop);
    };
  }, []);
  return <LocationContext.Provider value={location}>{children}</LocationContext.Provider>;
}

export function useLocation(): Location {
  return useContext(LocationContext);
}

/** The page's query string as filters: read, and replace (no new history entry per keystroke). */
export function useQueryState(): [URLSearchParams, (changes: Record<string, string | string[] | null>) => void] {
  const location = useLocation();
  const set = (changes: Record<string, string | string[] | null>) => {
    const next = new URLSearchParams(location.search);
    for (const [name, value] of Object.entries(changes)) {
      next.delete(name);
      if (Array.isArray(value)) for (const v of value) next.append(name, v);
      else if (value !== null && value !== '') next.set(name, value);
    }
    const query = next.toString();
    navigate(location.path + (query ? `?${query}` : ''), { replace: true });
  };
  return [location.search, set];
}

/** A link inside the console: moves without reloading (modified clicks open as the browser does). */
export interface LinkProps {
  readonly href: string;
  readonly children: ComponentChildren;
  readonly class?: string;
  readonly id?: string;
  readonly 'aria-current'?: 'page';
  readonly onClick?: () => void;
}

export function Link({ href: to, children, onClick: also, ...rest }: LinkProps) {
  // The href itself carries the customer: a link opened in a new tab acts on the same one.
  const href = keepCustomer(to, useLocation().search);
  const onClick = (event: MouseEvent) => {
    also?.();
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href, { exact: true });
  };
  return (
    <a {...rest} href={href} onClick={onClick}>
      {children}
    </a>
  );
}

/** Matches `/console/firmware/:id` against a path: the parameters, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) {
      try {
        params[want[i].slice(1)] = decodeURIComponent(have[i]);
      } catch {
        return null;
      }
    } else if (want[i] !== have[i]) return null;
  }
  return params;
}
