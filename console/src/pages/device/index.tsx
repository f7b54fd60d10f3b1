import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { addDeviceTag as tagLimits, updateDevice as limits } from '../../api/limits.gen';
import { useMe } from '../../app/identity';
import { Link } from '../../app/router';
import { ConfirmDialog } from '../../components/confirm';
import { ErrorMessage, Loading, Notice } from '../../components/feedback';
import { check, Field } from '../../components/form';
import { when } from '../../components/format';

import { TagEditor } from '../../components/tags';
import { useAction, useLoad } from '../../components/use-load';
import type { PageProps } from '../../routes';
import { UpdatePreview } from './update-preview';
import { DeviceHistory } from './history';
import { DeviceReports } from './reports';

type Device = Paths['/devices/{hwid}']['get']['responses'][200]['content']['application/json'];

/** Attributes (a JSON object) and public keys, edited with PATCH /devices/{hwid}. */
function DeviceData({ device, canWrite, onSaved }: { device: Device; canWrite: boolean; onSaved: (message: string) => void }) {
  const [attributes, setAttributes] = useState(JSON.stringify(device.attributes, null, 2));
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const save = useAction(async (body: { attributes?: Record<string, unknown>; keys?: string[] }, message: string) => {
    ok(await api.PATCH('/devices/{hwid}', { params: { path: { hwid: device.hwid } }, body }));
    onSaved(message);
  });
  const saveAttributes = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(attributes);
    } catch {
      parsed = null;
    }
    const invalid = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? null : limits.attributes.message;
    setProblem(invalid);
    if (!invalid) void save.run({ attributes: parsed as Record<string, unknown> }, 'Attributes saved.');
  };
  const addKey = () => {
    const keys = [...device.keys, key.trim()];
    const invalid = check(limits.keys, keys);
    setProblem(invalid);
    if (!invalid) void save.run({ keys }, 'Key added.').then(() => setKey(''));
  };
  return (
    <div class="panel">
      <h2>Attributes</h2>
      {canWrite ? (
        <>
          <Field label="Attributes (JSON object, at most 8 KiB)">
            <textarea rows={6} class="mono" value={attributes} onInput={(e) => setAttributes(e.currentTarget.value)} />
          </Field>
          <div class="actions">
            <button type="button" disabled={save.busy} onClick={saveAttributes}>
              Save attributes
            </button>
          </div>
        </>
      ) : (
        <pre class="mono">{JSON.stringify(device.attributes, null, 2)}</pre>
      )}
      <h2>Public keys</h2>
      {device.keys.length === 0 ? (
        <p class="hint">No keys.</p>
      ) : (
        <ul class="keys">
          {device.keys.map((k, i) => (
            <li key={k}>
              <pre class="mono">{k}</pre>
              {canWrite && (
                <button
                  type="button"
                  class="danger"
                  aria-label={`Remove key ${i + 1}`}
                  disabled={save.busy}
                  onClick={() => void save.run({ keys: device.keys.filter((_, j) => j !== i) }, 'Key removed.')}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canWrite && (
        <>
          <Field label="Add a public key (PEM or JWK JSON)">
            <textarea rows={4} class="mono" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          </Field>
          <div class="actions">
            <button type="button" disabled={save.busy || !key.trim()} onClick={addKey}>
              Add key
            </button>
          </div>
        </>
      )}
      <ErrorMessage error={problem ?? save.error} />
    </div>
  );
}

/** A device: attributes, keys, tags, last seen and version, withdraw/reactivate, and what the update check would offer it. */
export function DevicePage({ params }: PageProps) {
  const me = useMe();
  const hwid = params.hwid;
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const [withdrawing, setWithdrawing] = useState(false);
  const device = useLoad(async () => ok(await api.GET('/devices/{hwid}', { params: { path: { hwid } } })), [hwid, version]);
  const changed = (message: string) => {
    setNotice(message);
    setVersion((n) => n + 1);
  };
  const status = useAction(async (to: 'withdraw' | 'reactivate') => {
    if (to === 'withdraw') ok(await api.POST('/devices/{hwid}/withdraw', { params: { path: { hwid } } }));
    else ok(await api.POST('/devices/{hwid}/reactivate', { params: { path: { hwid } } }));
    setWithdrawing(false);
    changed(to === 'withdraw' ? 'The device is withdrawn: update checks treat it as unknown (general releases only).' : 'The device is active again.');
  });
  if (device.data === undefined) return device.loading ? <Loading what="the device" /> : <ErrorMessage error={device.error} />;
  const d = device.data;
  const canWrite = me.can('devices:write');
  const canTag = me.can('tags:write');
  return (
    <section>
      <p>
        <Link href="/console/devices">Back to the devices</Link>
      </p>
      <h1>
        Device <span class="mono">{d.hwid}</span> <span class={`status-${d.status}`}>({d.status})</span>
      </h1>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={(withdrawing ? null : status.error) ?? device.error} />
      <div class="panel">
        <dl class="facts">
          <dt>Status</dt>
          <dd id="device-status">{d.status}</dd>
          <dt>Last seen</dt>
          <dd>{d.last_seen_at ? when(d.last_seen_at) : 'never (no update check named it yet)'}</dd>
          <dt>Last reported version</dt>
          <dd>{d.last_fw_version ?? '—'}</dd>
          <dt>Registered</dt>
          <dd>{when(d.created_at)}</dd>
          <dt>Changed</dt>
          <dd>{when(d.updated_at)}</dd>
        </dl>
        {canWrite && (
          <div class="actions">
            {d.status === 'active' ? (
              <button type="button" class="danger" disabled={status.busy} onClick={() => setWithdrawing(true)}>
                Withdraw the device
              </button>
            ) : (
              <button type="button" disabled={status.busy} onClick={() => void status.run('reactivate')}>
                Reactivate the device
              </button>
            )}
          </div>
        )}
        {withdrawing && (
          <ConfirmDialog
            title={`Withdraw ${d.hwid}?`}
            confirm="Withdraw the device"
            busy={status.busy}
            error={status.error}
            onConfirm={() => void status.run('withdraw')}
            onCancel={() => setWithdrawing(false)}
          >
            <p id="withdraw-device-reach">
              The device is then treated as unknown by the update check: it is offered general releases only, no longer the builds its tags
              {d.tags.length ? ` (${d.tags.join(', ')})` : ''} select. It keeps its data; reactivating it serves it as before.
            </p>
          </ConfirmDialog>
        )}
        <h2>Tags</h2>
        <TagEditor
          label="Tags of the device"
          tags={d.tags}
          limits={tagLimits.tag}
          edit={
            canTag
              ? {
                  add: async (tag) => ok(await api.PUT('/devices/{hwid}/tags/{tag}', { params: { path: { hwid, tag } } })),
                  remove: async (tag) => ok(await api.DELETE('/devices/{hwid}/tags/{tag}', { params: { path: { hwid, tag } } })),
                  changed,
                }
              : undefined
          }
        />
      </div>
      <DeviceData key={d.updated_at} device={d} canWrite={canWrite} onSaved={changed} />
      <DeviceHistory hwid={hwid} version={version} />
      <DeviceReports hwid={hwid} version={version} />
      {me.can('fw:read') && <UpdatePreview hwid={hwid} version={version} />}
    </section>
  );
}
