import type { ComponentChildren } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { session } from '../api/session';
import { ROUTES } from '../routes';
import { type Identity, makeMe, MeContext } from './identity';
import { allowed, Layout } from './layout';
import { LocationProvider, matchPath, useLocation } from './router';

const ACTING_ON_KEY = 'console.acting-on';

function Routed() {
  const location = useLocation();
  const me = useContext(MeContext)!;
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
        <Page key={`${me.customer} ${location.path}`} params={params} />
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
  const [actingOn, setActingOn] = useState<string | null>(() => (identity.admin ? window.sessionStorage.getItem(ACTING_ON_KEY) : null));
  session.actOn(actingOn);
  const me = useMemo(
    () =>
      makeMe(identity, actingOn, (customer) => {
        if (customer) window.sessionStorage.setItem(ACTING_ON_KEY, customer);
        else window.sessionStorage.removeItem(ACTING_ON_KEY);
        session.actOn(customer);
        setActingOn(customer);
      }),
    [identity, actingOn],
  );
  return (
    <MeContext.Provider value={me}>
      <LocationProvider>
        <Layout>
          <Routed />
        </Layout>
      </LocationProvider>
    </MeContext.Provider>
  );
}
