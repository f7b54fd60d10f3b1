import { api, ok } from '../../api/client';
import { Link } from '../../app/router';
import { useMe } from '../../app/identity';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { when } from '../../components/format';
import { Table } from '../../components/table';
import { useLoad } from '../../components/use-load';
import { ROUTES } from '../../routes';
import { RolloutBadge, haltRuleText, type RolloutState } from '../rollout/shared';

/** The rollouts a release manager watches: halted first (they wait for a person), then running, paused, scheduled. */
const WATCHED: readonly RolloutState[] = ['halted', 'running', 'paused', 'scheduled'];
/** Per state: more is a sign to use the firmware list. */
const WATCHED_LIMIT = 50;

/** Rollouts under way (GET /rollouts per state), each linking to its page. */
function RolloutsUnderWay({ link }: { link: boolean }) {
  const rollouts = useLoad(
    async () =>
      (await Promise.all(WATCHED.map(async (state) => ok(await api.GET('/rollouts', { params: { query: { state, limit: WATCHED_LIMIT } } })).items))).flat(),
    [],
  );
  return (
    <section aria-labelledby="rollouts-heading">
      <h2 id="rollouts-heading">Rollouts under way</h2>
      <ErrorMessage error={rollouts.error} />
      {rollouts.data === undefined ? (
        rollouts.loading && <Loading what="the rollouts" />
      ) : rollouts.data.length === 0 ? (
        <Empty>No rollout is under way. Start one from a build&apos;s page.</Empty>
      ) : (
        <Table label="Rollouts by state" columns={['Build', 'Product line', 'State', 'Stage since', 'Halted by']}>
          {rollouts.data.map((r) => (
            <tr key={r.id}>
              <td>
                {link ? (
                  <Link href={`/console/firmware/${encodeURIComponent(r.build_id)}/rollout`}>{`${r.fw_name} ${r.fw_version}`}</Link>
                ) : (
                  `${r.fw_name} ${r.fw_version}`
                )}
              </td>
              <td class="mono">
                {r.hw_name} / {r.hw_version}
              </td>
              <td>
                <RolloutBadge state={r.state} currentStage={r.current_stage} percents={r.stage_percents} />
              </td>
              <td>{when(r.stage_started_at)}</td>
              <td>{r.halt && r.state === 'halted' ? `${haltRuleText(r.halt.rule)} (${r.halt.percent} %)` : '—'}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

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
      {me.can('fw:read') && <RolloutsUnderWay link={me.can('devices:read')} />}
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
