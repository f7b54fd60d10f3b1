import { Link } from '../../app/router';
import { useMe } from '../../app/identity';
import { ROUTES } from '../../routes';

/** Who is logged in, on which customer with which role, and where to go from here. */
export function HomePage() {
  const me = useMe();
  const { identity } = me;
  const pages = ROUTES.filter((route) => route.nav && route.path !== '/console' && !route.admin && (!route.scope || me.can(route.scope)));
  return (
    <section>
      <h1>Overview</h1>
      <dl class="facts">
        <dt>Email</dt>
        <dd id="me-email">{identity.email}</dd>
        <dt>Customer</dt>
        <dd id="me-customer">{me.customer}</dd>
        <dt>Role</dt>
        <dd id="me-role">{identity.role || '(none)'}</dd>
        <dt>Administrator</dt>
        <dd id="me-admin">{identity.admin === 'full' ? 'yes' : identity.admin === 'read' ? 'read-only' : 'no'}</dd>
      </dl>
      {pages.length > 0 && (
        <>
          <h2>What you can do here</h2>
          <ul class="tiles">
            {pages.map((route) => (
              <li key={route.path}>
                <Link href={route.path}>{route.nav}</Link>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
