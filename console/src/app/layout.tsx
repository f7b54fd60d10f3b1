import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { ErrorMessage } from '../components/feedback';
import { MaintenanceBanner } from '../components/admin-maintenance-banner';
import { useMe } from './identity';
import { Link, useLocation } from './router';
import { ROUTES, type RouteDef } from '../routes';

export function allowed(route: RouteDef, me: ReturnType<typeof useMe>): boolean {
  if (route.admin === 'full') return me.identity.admin === 'full';
  if (route.admin === 'read') return me.admin;
  return !route.scope || me.can(route.scope);
}

/** The session's customers (switch) or, for administrators, every customer (act on one with `customer=`). */
function CustomerControl() {
  const me = useMe();
  const { identity } = me;
  const [error, setError] = useState<unknown>(null);
  const switchTo = async (domain: string) => {
    setError(null);
    try {
      ok(await api.POST('/auth/switch', { body: { domain } }));
      // No `customer=`: the session's new customer.
      window.location.assign('/console');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="customer-control">
      {identity.memberships.length > 1 && (
        <label>
          Your customer
          <select value={identity.customer} onChange={(event) => void switchTo(event.currentTarget.value)}>
            {identity.memberships.map((m) => (
              <option key={m.domain} value={m.domain}>
                {m.domain} ({m.role})
              </option>
            ))}
          </select>
        </label>
      )}
      {me.admin && (
        <label>
          Acting on
          <select
            id="acting-on"
            value={me.customer}
            onChange={(event) => me.actOn(event.currentTarget.value === identity.customer ? null : event.currentTarget.value)}
          >
            {(me.customers?.includes(me.customer) ? me.customers : [me.customer, ...(me.customers ?? [])]).map((domain) => (
              <option key={domain} value={domain}>
                {domain}
              </option>
            ))}
          </select>
        </label>
      )}
      <ErrorMessage error={error} />
    </div>
  );
}

export function Layout({ children }: { children: ComponentChildren }) {
  const me = useMe();
  const location = useLocation();
  const [error, setError] = useState<unknown>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const logout = async () => {
    try {
      ok(await api.POST('/auth/logout'));
      window.location.assign('/login');
    } catch (err) {
      setError(err);
    }
  };
  const nav = ROUTES.filter((route) => route.nav && allowed(route, me));
  const active = (route: RouteDef) => (route.path === '/console' ? location.path === '/console' : location.path.startsWith(route.path));
  return (
    <>
      <a class="skip" href="#main">
        Skip to the page
      </a>
      <header class="top">
        <Link href="/console" class="brand">
          Firmware console
        </Link>
        <CustomerControl />
        <div class="who">
          <span title={me.identity.email}>{me.identity.email}</span>
          <button type="button" id="logout" onClick={() => void logout()}>
            Log out
          </button>
        </div>
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
      </header>
      <MaintenanceBanner />
      <ErrorMessage error={error} />
      <div class="frame">
        <nav id="nav" class={menuOpen ? 'open' : ''} aria-label="Console pages">
          <ul>
            {nav.map((route) => (
              <li key={route.path}>
                <Link href={route.path} aria-current={active(route) ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                  {route.nav}
                </Link>
              </li>
            ))}
          </ul>
          <ul class="external">
            <li>
              <a href="/docs">API documentation</a>
            </li>
            <li>
              <a href="/health">Service health</a>
            </li>
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </>
  );
}
