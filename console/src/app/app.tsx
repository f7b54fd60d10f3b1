import type { ComponentChildren } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { session } from '../api/session';
import { ErrorBoundary } from '../components/error-boundary';
import { Loading } from '../components/feedback';
import { useLoad } from '../components/use-load';
import { ROUTES } from '../routes';
import { type Identity, makeMe, MeContext } from './identity';
import { allowed, Layout } from './layout';
import { CUSTOMER_PARAM, LocationProvider, matchPath, navigate, useLocation } from './router';

/** The page shown now without `customer=`: acting on one's own customer again. */
function ownCustomerPath(path: string, search: URLSearchParams): string {
  const query = new URLSearchParams(search);
  query.delete(CUSTOMER_PARAM);
  return path + (query.size ? `?${query}` : '');
}

/** The address names a customer the person may not act on (unknown, or not an administrator): said instead of the page. */
function WrongCustomer({ named }: { named: string }) {
  const me = useContext(MeContext)!;
  const location = useLocation();
  const own = ownCustomerPath(location.path, location.search);
  return (
    <section>
      <h1>{me.admin ? 'Unknown customer' : "Another customer's page"}</h1>
      <p class="error" role="alert" id="wrong-customer">
        {me.admin
          ? `This address acts on the customer “${named}” (customer=${named}), which does not exist: it may have been renamed or deleted.`
          : me.identity.memberships.some((m) => m.domain === named)
            ? `This address is for the customer “${named}” (customer=${named}); you are logged in to ${me.identity.customer}. You belong to ${named} too: switch to it with “Your customer” above, then open the link again.`
            : `This address is for the customer “${named}” (customer=${named}); you are logged in to ${me.identity.customer}, and only administrators act on other customers.`}
      </p>
      <p>
        {/* Full loads: a console link would keep the unknown customer. */}
        <a href={own}>Open this page for {me.identity.customer}</a>
        {me.admin && (
          <>
            {' '}
            or choose a customer under <a href="/console/admin/customers">Customers</a>.
          </>
        )}
      </p>
    </section>
  );
}

/** Whether the address's customer may be acted on: 'wrong' (unknown, or not an administrator), 'checking' while the customers load. */
type CustomerCheck = 'ok' | 'checking' | 'wrong';

function Routed({ customerCheck }: { customerCheck: CustomerCheck }) {
  const location = useLocation();
  const me = useContext(MeContext)!;
  if (customerCheck === 'checking') return <Loading what="the customers" />;
  if (customerCheck === 'wrong') return <WrongCustomer named={location.search.get(CUSTOMER_PARAM) ?? ''} />;
  for (const route of ROUTES) {
    const params = matchPath(route.path, location.path);
    if (!params) continue;
    if (!allowed(route, me)) {
      return (
        <section>
          <h1>{route.title}</h1>
          <p class="error" role="alert">
            Your role ({me.identity.role || 'none'}) on {me.customer} does not allow this page. An owner of the customer can change your role.
          </p>
        </section>
      );
    }
    const Page = route.page;
    return (
      <Titled title={route.title}>
        <ErrorBoundary key={`${me.customer} ${location.path}`} title={route.title}>
          <Page params={params} />
        </ErrorBoundary>
      </Titled>
    );
  }
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no console page at <code>{location.path}</code>. Choose one from the menu.
      </p>
    </section>
  );
}

function Titled({ title, children }: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Console`;
  }, [title]);
  return <>{children}</>;
}

/** The logged-in console: the identity, the administrator's customer choice, the layout and the routed page. */
export function App({ identity }: { identity: Identity }) {
  return (
    <LocationProvider>
      <Console identity={identity} />
    </LocationProvider>
  );
}

/**
 * The customer acted on is the address's `customer=` (administrators; their own when absent),
 * so every tab, reload and bookmark acts on the customer its address names.
 */
function Console({ identity }: { identity: Identity }) {
  const location = useLocation();
  const admin = identity.admin === 'full' || identity.admin === 'read';
  const named = location.search.get(CUSTOMER_PARAM);
  const actingOn = admin && named && named !== identity.customer ? named : null;
  const customers = useLoad(async () => (admin ? ok(await api.GET('/admin/customers')).items.map((c) => c.domain) : []), [admin]);
  // A customer missing from the list may be new (or renamed) since it loaded: loaded again once before it counts as unknown.
  const [reloadedFor, setReloadedFor] = useState<string | null>(null);
  const missing = admin && named !== null && named !== identity.customer && customers.data !== undefined && !customers.data.includes(named);
  useEffect(() => {
    if (missing && reloadedFor !== named) {
      setReloadedFor(named);
      customers.reload();
    }
  }, [missing, named]);
  // When the list cannot be loaded, the pages go ahead and the service's answers say what is wrong.
  const customerCheck: CustomerCheck =
    !named || named === identity.customer
      ? 'ok'
      : !admin
        ? 'wrong'
        : customers.loading || (missing && reloadedFor !== named)
          ? 'checking'
          : customers.data === undefined || customers.data.includes(named)
            ? 'ok'
            : 'wrong';
  session.actOn(actingOn);
  const me = useMemo(
    () =>
      makeMe(
        identity,
        actingOn,
        (customer, to) => {
          const url = new URL(to ?? ownCustomerPath(location.path, location.search), window.location.origin);
          if (customer && customer !== identity.customer) url.searchParams.set(CUSTOMER_PARAM, customer);
          else url.searchParams.delete(CUSTOMER_PARAM);
          navigate(url.pathname + url.search, { exact: true });
        },
        customers.data,
      ),
    [identity, actingOn, location, customers.data],
  );
  return (
    <MeContext.Provider value={me}>
      <Layout>
        <Routed customerCheck={customerCheck} />
      </Layout>
    </MeContext.Provider>
  );
}
