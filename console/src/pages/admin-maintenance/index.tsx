import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { adminSetMaintenance as limits } from '../../api/limits.gen';
import { maintenanceChanged, type MaintenanceSetting } from '../../components/admin-maintenance-banner';
import { ReadOnlyNote, useFullAdmin } from '../../components/admin';
import { ErrorMessage, Loading, Notice } from '../../components/feedback';
import { check, Field, inputLimits } from '../../components/form';
import { useAction, useLoad } from '../../components/use-load';

function MaintenanceForm({ setting, onSaved }: { setting: MaintenanceSetting; onSaved: (setting: MaintenanceSetting) => void }) {
  const [message, setMessage] = useState(setting.enabled ? setting.message : '');
  const [problem, setProblem] = useState<string | null>(null);
  const save = useAction(async (enabled: boolean) => {
    const invalid = check(limits.message, message.trim());
    setProblem(invalid);
    if (invalid) return;
    onSaved(ok(await api.PUT('/admin/settings/maintenance', { body: { enabled, message: message.trim() || undefined } })));
  });
  return (
    <form class="panel" noValidate onSubmit={(event) => event.preventDefault()}>
      <Field label="Message" hint="Shown with every refused write; empty: the service's default message">
        <textarea name="message" rows={2} value={message} {...inputLimits(limits.message)} onInput={(e) => setMessage(e.currentTarget.value)} />
      </Field>
      <div class="actions">
        {setting.enabled ? (
          <>
            <button type="button" class="primary" disabled={save.busy} onClick={() => void save.run(false)}>
              Turn maintenance off
            </button>
            <button type="button" disabled={save.busy} onClick={() => void save.run(true)}>
              Change the message
            </button>
          </>
        ) : (
          <button type="button" class="danger" disabled={save.busy} onClick={() => void save.run(true)}>
            Turn maintenance on
          </button>
        )}
      </div>
      <ErrorMessage error={problem ?? save.error} />
    </form>
  );
}

/** Maintenance mode: on (every write answers 503 with the message) or off. */
export function AdminMaintenancePage() {
  const full = useFullAdmin();
  const setting = useLoad(async () => ok(await api.GET('/admin/settings/maintenance')), []);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <section>
      <h1>Maintenance mode</h1>
      <ReadOnlyNote />
      <p class="hint">
        While maintenance is on, every write (POST, PUT, PATCH, DELETE) answers 503 with <code>Retry-After: 300</code> and the message. Reads, the update check,
        downloads, logging in and out, IP blocks and this setting keep working. A change is in force at once for your next request, and on every gateway within
        2 s. A restore turns it on while it runs.
      </p>
      <ErrorMessage error={setting.error} />
      {setting.data === undefined ? (
        setting.loading && <Loading what="the setting" />
      ) : (
        <>
          <p id="maintenance-state" class={setting.data.enabled ? 'error' : 'notice'}>
            {setting.data.enabled ? `Maintenance is ON: writes answer 503 (“${setting.data.message}”).` : 'Maintenance is off: the service takes writes.'}
          </p>
          {notice && <Notice>{notice}</Notice>}
          {full && (
            <MaintenanceForm
              key={String(setting.data.enabled)}
              setting={setting.data}
              onSaved={(saved) => {
                maintenanceChanged(saved);
                setNotice(saved.enabled ? 'Maintenance is on.' : 'Maintenance is off.');
                setting.reload();
              }}
            />
          )}
        </>
      )}
    </section>
  );
}
