import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { listFirmwareRolloutDevices as deviceLimits } from '../../api/limits.gen';
import { ApiError } from '../../api/problem';
import { useMe } from '../../app/identity';
import { Link, useQueryState } from '../../app/router';
import { StackedBarChart } from '../../components/bar-chart';
import { ConfirmDialog } from '../../components/confirm';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { anyOf, QuerySelect } from '../../components/filters';
import { when } from '../../components/format';
import { Pager } from '../../components/pager';
import { Person } from '../../components/person';
import { Table } from '../../components/table';
import { useAction, useAutoRefresh, useLoad } from '../../components/use-load';
import type { PageProps } from '../../routes';
import { minutes, OUTCOMES, outcomeLabel, type Rollout, RolloutBadge, rolloutPath, haltRuleText, STATE_MEANING } from './shared';

/** How often a live rollout's page asks again (each request after the last one answered). */
const REFRESH_MS = 10_000;
const DEVICES_PAGE = 50;

type Action = 'pause' | 'resume' | 'advance' | 'abort';

/** Steering calls, one per action (POST /firmware/{id}/rollout/{action}). */
const STEER: Record<Action, (id: string) => Promise<Rollout>> = {
  pause: async (id) => ok(await api.POST('/firmware/{id}/rollout/pause', { params: { path: { id } } })),
  resume: async (id) => ok(await api.POST('/firmware/{id}/rollout/resume', { params: { path: { id } } })),
  advance: async (id) => ok(await api.POST('/firmware/{id}/rollout/advance', { params: { path: { id } } })),
  abort: async (id) => ok(await api.POST('/firmware/{id}/rollout/abort', { params: { path: { id } } })),
};

/** The actions a state allows (the API answers 409 rollout_transition_invalid to the others). */
function actionsOf(state: Rollout['state']): Action[] {
  switch (state) {
    case 'scheduled':
      return ['advance', 'abort'];
    case 'running':
      return ['pause', 'advance', 'abort'];
    case 'paused':
      return ['resume', 'advance', 'abort'];
    case 'halted':
      return ['resume', 'abort'];
    default:
      return [];
  }
}

const BUTTON: Record<Action, string> = {
  pause: 'Pause the rollout',
  resume: 'Resume the rollout',
  advance: 'Advance now',
  abort: 'Abort the rollout',
};

/** What an action does, said before it is sent. */
function consequence(action: Action, r: Rollout): string {
  const next = r.stages[r.current_stage + 1];
  switch (action) {
    case 'pause':
      return 'Devices this rollout already reached are still offered the build; no new device is reached and the rollout does not move on until it is resumed.';
    case 'resume':
      return r.state === 'halted'
        ? `The current stage is offered again and the evaluator watches it: it halts again at its next run if a halt rule still trips (${r.halt ? haltRuleText(r.halt.rule) : 'the halt rules'}).`
        : 'The current stage is offered again and the evaluator moves on after its hold time if the outcomes are healthy.';
    case 'advance':
      return next
        ? `Stage ${next.index + 1} starts now, without waiting for the hold time: ${next.percent} % of the audience${next.min_devices ? ` (at least ${next.min_devices.toLocaleString()} devices)` : ''} is offered the build from its next check.`
        : `The rollout completes now: the build follows its own release rule again${r.complete_as_general_release ? ' and becomes a general release, offered to every device of its product line' : ''}.`;
    case 'abort':
      return 'The rollout stops for good: the build is offered to nobody new under it (devices that installed it keep it). A new rollout of the build can be started afterwards.';
  }
}

/** The stages as a table: what each reaches, when it started and ends, how far it got. */
function StageTimeline({ rollout: r }: { rollout: Rollout }) {
  return (
    <Table
      caption="Stage timeline"
      label="Stage timeline"
      columns={[
        'Stage',
        { label: 'Percent', num: true },
        { label: 'Minimum devices', num: true },
        'Hold',
        'Started',
        'Ends',
        { label: 'Devices in the stage', num: true },
        { label: 'Reached', num: true },
      ]}
    >
      {r.stages.map((stage) => {
        const current = stage.index === r.current_stage && r.state !== 'completed';
        const next = r.stages[stage.index + 1];
        const ends = next?.started_at
          ? when(next.started_at)
          : stage.started_at && current
            ? `${when(new Date(Date.parse(stage.started_at) + stage.hold_minutes * 60_000).toISOString())}${r.state === 'running' ? '' : ' (on hold)'}`
            : stage.started_at && r.state === 'completed'
              ? 'completed'
              : '—';
        return (
          <tr key={stage.index} class={current ? 'current-stage' : undefined} aria-current={current ? 'step' : undefined}>
            <td>
              {stage.index + 1}
              {current ? ' (current)' : ''}
            </td>
            <td class="num">{stage.percent} %</td>
            <td class="num">{stage.min_devices.toLocaleString()}</td>
            <td>{minutes(stage.hold_minutes)}</td>
            <td>{stage.started_at ? when(stage.started_at) : 'not yet'}</td>
            <td>{ends}</td>
            <td class="num">{stage.target_devices === null ? '—' : stage.target_devices.toLocaleString()}</td>
            <td class="num">{stage.offered.toLocaleString()}</td>
          </tr>
        );
      })}
    </Table>
  );
}

/** The devices the rollout offered the build to, by outcome and stage (kept in the address), paged. */
function RolloutDevices({ id, rollout, live }: { id: string; rollout: Rollout; live: boolean }) {
  const [query, setQuery] = useQueryState();
  const outcome = query.get('outcome') || undefined;
  const stage = query.get('stage');
  const offset = Number(query.get('offset') ?? '0') || 0;
  const devices = useLoad(
    async () =>
      ok(
        await api.GET('/firmware/{id}/rollout/devices', {
          params: {
            path: { id },
            query: {
              outcome: outcome as (typeof deviceLimits.outcome.oneOf)[number] | undefined,
              stage: stage ? Number(stage) : undefined,
              limit: DEVICES_PAGE,
              offset,
            },
          },
        }),
      ),
    [id, query.toString()],
  );
  useAutoRefresh(devices, REFRESH_MS, live);
  const stageOptions = [['', 'any'] as const, ...rollout.stages.map((s) => [String(s.index), `${s.index + 1} (${s.percent} %)`] as const)];
  return (
    <section class="panel" aria-labelledby="rollout-devices-heading">
      <h2 id="rollout-devices-heading">Devices</h2>
      <div class="form-grid">
        <QuerySelect label="Outcome" name="outcome" options={anyOf(deviceLimits.outcome.oneOf)} />
        <QuerySelect label="Stage" name="stage" options={stageOptions} />
      </div>
      <ErrorMessage error={devices.error} />
      {devices.data === undefined ? (
        devices.loading && <Loading what="the devices" />
      ) : devices.data.items.length === 0 ? (
        <Empty>
          {outcome || stage ? 'No device has this outcome in this stage.' : 'No device has been offered the build yet: devices count once they check in.'}
        </Empty>
      ) : (
        <Table
          label="Devices of the rollout"
          columns={['Device', 'Stage', 'Outcome', 'Offered', 'Updated', 'Runs now', 'Last seen', 'Its report']}
          caption={
            <>
              Devices {offset + 1} to {offset + devices.data.items.length}
            </>
          }
        >
          {devices.data.items.map((device) => (
            <tr key={device.hwid}>
              <td>
                <Link href={`/console/devices/${encodeURIComponent(device.hwid)}`}>{device.hwid}</Link>
              </td>
              <td>{device.stage + 1}</td>
              <td class={`outcome-${device.outcome}`}>{outcomeLabel(device.outcome)}</td>
              <td>{when(device.offered_at)}</td>
              <td>{when(device.updated_at)}</td>
              <td>{device.last_fw_version ?? '—'}</td>
              <td>{when(device.last_seen_at)}</td>
              <td>{device.reported_reason ?? '—'}</td>
            </tr>
          ))}
        </Table>
      )}
      <Pager
        offset={offset}
        limit={DEVICES_PAGE}
        nextOffset={devices.data?.next_offset}
        onOffset={(next) => setQuery({ offset: next ? String(next) : null })}
      />
    </section>
  );
}

/**
 * A build's staged rollout (docs/console.md "Rollouts"): its state, the stage timeline, outcomes
 * per stage as a chart, the devices by outcome, the halt reason, and the steering buttons for
 * those who may write firmware. Asks again every few seconds while the rollout is live.
 */
export function RolloutPage({ params }: PageProps) {
  const me = useMe();
  const id = params.id;
  const [asking, setAsking] = useState<Action | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const build = useLoad(async () => ok(await api.GET('/firmware/{id}', { params: { path: { id } } })), [id]);
  const rollout = useLoad(async () => ok(await api.GET('/firmware/{id}/rollout', { params: { path: { id } } })), [id]);
  const live = rollout.data?.state === 'running' || rollout.data?.state === 'scheduled';
  useAutoRefresh(rollout, REFRESH_MS, live);
  const steer = useAction(async (action: Action) => {
    await STEER[action](id);
    setAsking(null);
    setNotice(
      { pause: 'The rollout is paused.', resume: 'The rollout runs again.', advance: 'The rollout moved on.', abort: 'The rollout is aborted.' }[action],
    );
    rollout.reload();
  });
  const b = build.data;
  const heading = b ? `Rollout of ${b.fw_name} ${b.fw_version}` : 'Rollout';
  const back = (
    <p>
      <Link href={`/console/firmware/${encodeURIComponent(id)}`}>Back to the build</Link>
    </p>
  );
  if (rollout.data === undefined) {
    if (rollout.loading) return <Loading what="the rollout" />;
    const none = rollout.error instanceof ApiError && rollout.error.code === 'rollout_not_found';
    return (
      <section>
        {back}
        <h1>{heading}</h1>
        {none ? (
          <Empty>
            This build has no staged rollout.{' '}
            {me.can('fw:write') && <Link href={`/console/firmware/${encodeURIComponent(id)}/rollout/new`}>Start a staged rollout.</Link>}
          </Empty>
        ) : (
          <ErrorMessage error={rollout.error} />
        )}
      </section>
    );
  }
  const r = rollout.data;
  const percents = r.stages.map((s) => s.percent);
  const actions = me.can('fw:write') ? actionsOf(r.state) : [];
  const current = r.stages[r.current_stage];
  return (
    <section>
      {back}
      <h1>{heading}</h1>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={asking ? null : (steer.error ?? rollout.error)} />
      <div class="panel">
        <dl class="facts">
          <dt>State</dt>
          <dd id="rollout-state">
            <RolloutBadge state={r.state} currentStage={r.current_stage} percents={percents} />
          </dd>
          <dt>What that means</dt>
          <dd>{STATE_MEANING[r.state]}</dd>
          <dt>Audience</dt>
          <dd id="rollout-audience">
            {r.audience === null ? 'counted when the first stage starts' : `${r.audience.toLocaleString()} devices`}
            {r.extra_tags.length ? ` (narrowed to the tags ${r.extra_tags.join(', ')})` : ''}
          </dd>
          {current && r.stage_started_at && (
            <>
              <dt>Current stage since</dt>
              <dd>{when(r.stage_started_at)}</dd>
            </>
          )}
          {r.start_at && r.state === 'scheduled' && (
            <>
              <dt>Starts</dt>
              <dd>{when(r.start_at)}</dd>
            </>
          )}
          <dt>Halt rules</dt>
          <dd>{r.halt_rules.length ? r.halt_rules.map(haltRuleText).join('; ') : 'none: the rollout never halts by itself'}</dd>
          <dt>When complete</dt>
          <dd>{r.complete_as_general_release ? 'the build becomes a general release' : 'the build follows its own release rule (tags)'}</dd>
          <dt>Started by</dt>
          <dd>
            <Person actor={r.created_by} /> on {when(r.created_at)}
          </dd>
        </dl>
        {r.halt && (
          <div class="halt-reason" id="rollout-halt" role={r.state === 'halted' ? 'alert' : undefined}>
            <strong>{r.state === 'halted' ? 'Halted' : 'Halted before'}</strong> on {when(r.halt.at)}: {haltRuleText(r.halt.rule)} tripped with{' '}
            {r.halt.count.toLocaleString()} of {r.halt.outcomes.toLocaleString()} outcomes {outcomeLabel(r.halt.rule.outcome)} ({r.halt.percent} %).
          </div>
        )}
        <div class="actions">
          {actions.map((action) => (
            <button key={action} type="button" class={action === 'abort' ? 'danger' : undefined} disabled={steer.busy} onClick={() => setAsking(action)}>
              {BUTTON[action]}
            </button>
          ))}
          <button type="button" onClick={rollout.reload} disabled={rollout.loading}>
            Refresh
          </button>
          {live && <span class="hint">Refreshes by itself every {REFRESH_MS / 1000} s.</span>}
        </div>
      </div>
      <StageTimeline rollout={r} />
      <StackedBarChart
        title="Outcomes per stage"
        series={OUTCOMES}
        rows={r.stages
          .filter((s) => s.started_at)
          .map((s) => ({ label: `Stage ${s.index + 1} (${s.percent} %)`, values: s.outcomes, href: `${rolloutPath(id)}?stage=${s.index}` }))}
        empty="No stage has started yet."
      />
      <details class="panel">
        <summary>What the outcomes mean</summary>
        <dl class="facts">
          {OUTCOMES.map((o) => (
            <Fragment key={o.key}>
              <dt>{o.label}</dt>
              <dd>{o.meaning}</dd>
            </Fragment>
          ))}
        </dl>
      </details>
      <RolloutDevices id={id} rollout={r} live={live} />
      {asking && (
        <ConfirmDialog
          title={`${BUTTON[asking]}?`}
          confirm={BUTTON[asking]}
          danger={asking === 'abort'}
          busy={steer.busy}
          error={steer.error}
          onConfirm={() => void steer.run(asking)}
          onCancel={() => setAsking(null)}
        >
          <p id="steer-consequence">{consequence(asking, r)}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
