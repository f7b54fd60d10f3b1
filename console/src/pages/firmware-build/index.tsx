import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { ApiError } from '../../api/problem';
import { addFirmwareTag as tagLimits } from '../../api/limits.gen';
import { session } from '../../api/session';
import { useMe } from '../../app/identity';
import { Link } from '../../app/router';
import { ConfirmDialog } from '../../components/confirm';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { bytes, day, when } from '../../components/format';
import { Pager } from '../../components/pager';
import { Table } from '../../components/table';
import { TagEditor } from '../../components/tags';
import { useAction, useLoad } from '../../components/use-load';
import { Person } from '../../components/person';
import { haltRuleText, RolloutBadge, rolloutPath, STATE_MEANING } from '../rollout/shared';
import type { PageProps } from '../../routes';

type Build = Paths['/firmware/{id}']['get']['responses'][200]['content']['application/json'];
type Audience = Paths['/firmware/{id}/audience']['get']['responses'][200]['content']['application/json'];

const AUDIENCE_SIZE = 50;

function ruleText(audience: Audience): string {
  switch (audience.rule) {
    case 'nobody':
      return 'Nobody: the build is withdrawn.';
    case 'every_caller':
      return 'Every update check of its product line with an older version (a general release), device known or not.';
    case 'known_devices':
      return 'Every known, active device whose update check names it, whatever its tags (tag filter off).';
    case 'devices_sharing_tag':
      return audience.tags.length
        ? `Known, active devices sharing one of its tags (${audience.tags.join(', ')}).`
        : 'Nobody yet: give it a tag its devices have, make it a general release, or switch the tag filter off.';
    case 'rollout':
      return 'A staged rollout decides: only the devices its stages reached so far, among those listed here (the rollout page says how many each stage reaches).';
  }
}

/** "Who gets this build": the update check's own rule and the devices it offers the build to now. */
function BuildAudience({ id, version }: { id: string; version: number }) {
  const [offset, setOffset] = useState(0);
  const audience = useLoad(
    async () => ok(await api.GET('/firmware/{id}/audience', { params: { path: { id }, query: { limit: AUDIENCE_SIZE, offset } } })),
    [id, offset, version],
  );
  return (
    <section class="panel" aria-labelledby="audience-heading">
      <h2 id="audience-heading">Who gets this build</h2>
      <ErrorMessage error={audience.error} />
      {audience.data === undefined ? (
        audience.loading && <Loading what="the audience" />
      ) : (
        <>
          <p id="audience-rule">{ruleText(audience.data)}</p>
          <dl class="facts" id="audience-counts">
            <dt>Devices offered it at their next check</dt>
            <dd id="audience-devices">{audience.data.devices}</dd>
            <dt>In the rule but never checked in</dt>
            <dd>{audience.data.never_checked_in}</dd>
            <dt>Unknown devices too</dt>
            <dd>{audience.data.unknown_devices ? 'yes' : 'no'}</dd>
          </dl>
          {audience.data.items.length === 0 ? (
            <Empty>No known device would be offered this build now (devices count once they have checked in on its product line with an older version).</Empty>
          ) : (
            <Table columns={['Device', 'Runs now', 'Last seen']}>
              {audience.data.items.map((device) => (
                <tr key={device.hwid}>
                  <td>
                    <Link href={`/console/devices/${encodeURIComponent(device.hwid)}`}>{device.hwid}</Link>
                  </td>
                  <td>{device.last_fw_version}</td>
                  <td>{when(device.last_seen_at)}</td>
                </tr>
              ))}
            </Table>
          )}
          <Pager offset={offset} limit={AUDIENCE_SIZE} nextOffset={audience.data.next_offset} onOffset={setOffset} />
          <div class="actions">
            <button type="button" onClick={audience.reload} disabled={audience.loading}>
              Refresh
            </button>
            <span class="hint">Devices count once their update checks have been recorded (within seconds).</span>
          </div>
        </>
      )}
    </section>
  );
}

/**
 * "Staged rollout": the build's latest rollout (its state, linking to its page), or the way to
 * start one for those who may write firmware.
 */
function RolloutPanel({ id, canStart, version }: { id: string; canStart: boolean; version: number }) {
  const rollout = useLoad(async () => {
    try {
      return ok(await api.GET('/firmware/{id}/rollout', { params: { path: { id } } }));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'rollout_not_found') return null;
      throw err;
    }
  }, [id, version]);
  const r = rollout.data;
  const open = r && r.state !== 'completed' && r.state !== 'aborted';
  return (
    <section class="panel" aria-labelledby="rollout-heading">
      <h2 id="rollout-heading">Staged rollout</h2>
      <ErrorMessage error={rollout.error} />
      {r === undefined ? (
        rollout.loading && <Loading what="the rollout" />
      ) : r === null ? (
        <p id="rollout-none">No staged rollout: the build reaches its whole audience at once.</p>
      ) : (
        <>
          <p id="rollout-summary">
            <RolloutBadge state={r.state} currentStage={r.current_stage} percents={r.stages.map((s) => s.percent)} />: {STATE_MEANING[r.state]}
          </p>
          {r.halt && r.state === 'halted' && (
            <p class="error">
              Halted: {haltRuleText(r.halt.rule)} tripped ({r.halt.count.toLocaleString()} of {r.halt.outcomes.toLocaleString()}, {r.halt.percent} %).
            </p>
          )}
        </>
      )}
      <div class="actions">
        {r && (
          <Link href={rolloutPath(id)} class="button">
            See the rollout
          </Link>
        )}
        {canStart && r !== undefined && !open && (
          <Link href={`${rolloutPath(id)}/new`} class="button primary">
            Start a staged rollout
          </Link>
        )}
      </div>
    </section>
  );
}

/** "3 devices", "1 device". */
function devices(n: number): string {
  return `${n.toLocaleString()} ${n === 1 ? 'device' : 'devices'}`;
}

type DialogProps = { build: Build; busy: boolean; error: unknown; onConfirm: () => void; onCancel: () => void };

/**
 * A confirmation that says whom a release change reaches: the build's audience counted afresh
 * (`asGeneralRelease`: as if it were a general release), put in words by `reach`.
 */
function ReachDialog({
  build,
  reachId,
  title,
  confirm,
  asGeneralRelease,
  reach,
  children,
  ...actions
}: DialogProps & {
  /** The id of the paragraph saying whom it reaches. */
  reachId: string;
  title: string;
  confirm: string;
  asGeneralRelease?: boolean;
  reach: (audience: Audience, line: string) => string;
  children?: ComponentChildren;
}) {
  const audience = useLoad(
    async () => ok(await api.GET('/firmware/{id}/audience', { params: { path: { id: build.id }, query: { limit: 1, as_general_release: asGeneralRelease } } })),
    [build.id, asGeneralRelease],
  );
  const line = `${build.hw_name} / ${build.hw_version} / ${build.fw_name}`;
  return (
    <ConfirmDialog title={title} confirm={confirm} {...actions}>
      {audience.data ? (
        <p id={reachId}>{reach(audience.data, line)}</p>
      ) : audience.loading ? (
        <Loading what="whom the build reaches" />
      ) : (
        <ErrorMessage error={audience.error} />
      )}
      {children}
    </ConfirmDialog>
  );
}

/** Asks before withdrawing: how many devices stop being offered the build. */
function WithdrawDialog(props: DialogProps) {
  const b = props.build;
  return (
    <ReachDialog
      {...props}
      reachId="withdraw-reach"
      title={`Withdraw ${b.fw_name} ${b.fw_version}?`}
      confirm="Withdraw the build"
      reach={(a, line) =>
        (a.rule === 'every_caller' ? `It is a general release: every update check of ${line} with an older version is offered it. ` : '') +
        `Withdrawing it stops offering it to ${devices(a.devices)} at their next check` +
        (a.never_checked_in > 0 ? `, and to ${devices(a.never_checked_in)} that have not checked in yet` : '') +
        (a.unknown_devices ? ', and to every device the registry does not know' : '') +
        '. They are offered the newest other build for them, if any.'
      }
    >
      <p>Reactivating the build offers it again.</p>
    </ReachDialog>
  );
}

/** Asks before making the build a general release (or taking that back), saying whom that reaches. */
function GeneralReleaseDialog(props: DialogProps) {
  const b = props.build;
  const making = !b.general_release;
  return (
    <ReachDialog
      {...props}
      reachId="general-release-reach"
      title={making ? `Make ${b.fw_name} ${b.fw_version} a general release?` : `Stop the general release of ${b.fw_name} ${b.fw_version}?`}
      confirm={making ? 'Make it a general release' : 'Stop the general release'}
      asGeneralRelease={making || undefined}
      reach={(a, line) =>
        making
          ? `Every update check of ${line} with an older version is offered it from its next check: ${devices(a.devices)} known now` +
            (a.never_checked_in > 0 ? `, ${devices(a.never_checked_in)} once they check in` : '') +
            ', and every device the registry does not know.'
          : `Devices without a shared tag stop being offered it; as a tagged build it reaches ${devices(a.devices)} (the audience below, when the general release is off).`
      }
    />
  );
}

/** A build: its fields, tags, release settings, withdraw/reactivate (If-Match), downloads, and who gets it. */
export function FirmwareBuildPage({ params }: PageProps) {
  const me = useMe();
  const id = params.id;
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const [withdrawing, setWithdrawing] = useState(false);
  const [releasing, setReleasing] = useState(false);
  const build = useLoad(async () => {
    const result = await api.GET('/firmware/{id}', { params: { path: { id } } });
    return { record: ok(result), etag: result.response.headers.get('ETag') ?? '' };
  }, [id, version]);
  const refresh = () => setVersion((n) => n + 1);
  // If-Match: a change applies only to the build as shown (412 when someone changed it meanwhile).
  const ifMatch = () => ({ 'If-Match': build.data?.etag ?? '' });
  const changed = (done: string) => {
    setNotice(done);
    setWithdrawing(false);
    setReleasing(false);
    refresh();
  };
  const patch = useAction(async (change: { status?: 'active' | 'withdrawn'; tag_filter_disabled?: boolean }, done: string) => {
    ok(await api.PATCH('/firmware/{id}', { params: { path: { id } }, body: change, headers: ifMatch() }));
    changed(done);
  });
  const release = useAction(async (generalRelease: boolean, done: string) => {
    ok(await api.PUT('/firmware/{id}/general-release', { params: { path: { id } }, body: { general_release: generalRelease }, headers: ifMatch() }));
    changed(done);
  });
  if (build.data === undefined) return build.loading ? <Loading what="the build" /> : <ErrorMessage error={build.error} />;
  const b: Build = build.data.record;
  const canWrite = me.can('fw:write');
  const canTag = me.can('tags:write');
  return (
    <section>
      <p>
        <Link href="/console/firmware">Back to the builds</Link>
      </p>
      <h1>
        {b.fw_name} {b.fw_version} <span class={`status-${b.status}`}>({b.status})</span>
      </h1>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={(withdrawing || releasing ? null : (patch.error ?? release.error)) ?? build.error} />
      <div class="panel">
        <dl class="facts">
          <dt>Product line</dt>
          <dd class="mono">
            {b.hw_name} / {b.hw_version} / {b.fw_name}
          </dd>
          <dt>Version</dt>
          <dd>{b.fw_version}</dd>
          <dt>Type</dt>
          <dd>{b.fw_type}</dd>
          <dt>Build date</dt>
          <dd>{day(b.build_date)}</dd>
          <dt>What string</dt>
          <dd class="mono">{b.what_string ?? '(none: values given at upload)'}</dd>
          <dt>Size</dt>
          <dd>{bytes(b.size_bytes)}</dd>
          <dt>SHA-256</dt>
          <dd class="mono">{b.sha256}</dd>
          <dt>General release</dt>
          <dd id="general-release">{b.general_release ? 'yes: offered to every device' : 'no'}</dd>
          <dt>Uploaded</dt>
          <dd>
            {when(b.uploaded_at)} by <Person actor={b.uploaded_by} />
          </dd>
          <dt>Downloads</dt>
          <dd>
            {b.download_count} (notes: {b.notes_download_count})
          </dd>
        </dl>
        <div class="actions">
          <a class="button" href={session.url(`/firmware/${encodeURIComponent(id)}/binary`)} download>
            Download the binary
          </a>
          {b.notes ? (
            <a class="button" href={session.url(`/firmware/${encodeURIComponent(id)}/notes`)} download>
              Download the release notes ({bytes(b.notes.size_bytes)})
            </a>
          ) : (
            <span class="hint">No release notes.</span>
          )}
        </div>
      </div>
      <div class="panel">
        <h2>Release</h2>
        <h3>Tags</h3>
        <p class="hint">Devices sharing one of these tags are offered the build.</p>
        <TagEditor
          label="Tags of the build"
          tags={b.tags}
          limits={tagLimits.tag}
          edit={
            canTag
              ? {
                  add: async (tag) => ok(await api.PUT('/firmware/{id}/tags/{tag}', { params: { path: { id, tag } } })),
                  remove: async (tag) => ok(await api.DELETE('/firmware/{id}/tags/{tag}', { params: { path: { id, tag } } })),
                  changed: (message) => {
                    setNotice(message);
                    refresh();
                  },
                }
              : undefined
          }
        />
        <h3>Tag filter</h3>
        <p>
          {b.tag_filter_disabled
            ? 'Off: every known, active device that names this product line is offered the build, whatever its tags.'
            : 'On: only devices sharing a tag (or everyone, for a general release).'}
        </p>
        {canWrite && (
          <div class="actions">
            <button
              type="button"
              disabled={patch.busy}
              onClick={() =>
                void patch.run(
                  { tag_filter_disabled: !b.tag_filter_disabled },
                  b.tag_filter_disabled ? 'Tag filter on: only devices sharing a tag get it.' : 'Tag filter off: every known device gets it.',
                )
              }
            >
              {b.tag_filter_disabled ? 'Switch the tag filter on' : 'Switch the tag filter off'}
            </button>
            <button type="button" id="general-release-toggle" disabled={patch.busy || release.busy} onClick={() => setReleasing(true)}>
              {b.general_release ? 'Stop the general release' : 'Make it a general release'}
            </button>
            {b.status === 'active' ? (
              <button type="button" class="danger" disabled={patch.busy} onClick={() => setWithdrawing(true)}>
                Withdraw the build
              </button>
            ) : (
              <button type="button" disabled={patch.busy} onClick={() => void patch.run({ status: 'active' }, 'The build is active again.')}>
                Reactivate the build
              </button>
            )}
          </div>
        )}
      </div>
      {withdrawing && (
        <WithdrawDialog
          build={b}
          busy={patch.busy}
          error={patch.error}
          onConfirm={() => void patch.run({ status: 'withdrawn' }, 'The build is withdrawn: no update check offers it.')}
          onCancel={() => setWithdrawing(false)}
        />
      )}
      {releasing && (
        <GeneralReleaseDialog
          build={b}
          busy={release.busy}
          error={release.error}
          onConfirm={() =>
            void release.run(
              !b.general_release,
              b.general_release
                ? 'The general release is off: devices sharing a tag get the build.'
                : 'The build is a general release: every device of its line gets it.',
            )
          }
          onCancel={() => setReleasing(false)}
        />
      )}
      {me.can('devices:read') && <RolloutPanel id={id} version={version} canStart={canWrite && b.status === 'active'} />}
      {me.can('devices:read') && <BuildAudience id={id} version={version} />}
    </section>
  );
}
