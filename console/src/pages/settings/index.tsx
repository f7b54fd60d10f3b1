import { useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { updateSettings as limits } from '../../api/limits.gen';
import { useMe } from '../../app/identity';
import { ErrorMessage, Loading, Notice } from '../../components/feedback';
import { check, Field, inputLimits, PanelForm } from '../../components/form';
import { duration } from '../../components/format';
import { useAction, useLoad } from '../../components/use-load';

type Settings = Paths['/settings']['get']['responses'][200]['content']['application/json'];

/** The polling interval: a number of seconds within the API's range, or the service default. */
function PollIntervalForm({ settings, onSaved }: { settings: Settings; onSaved: (message: string) => void }) {
  const [seconds, setSeconds] = useState(String(settings.poll_interval_seconds ?? settings.effective_poll_interval_seconds));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useAction(async (value: number | null) => {
    const saved = ok(await api.PATCH('/settings', { body: { poll_interval_seconds: value } }));
    onSaved(
      value === null
        ? `Devices now check every ${duration(saved.effective_poll_interval_seconds)} (the service default), from their next check.`
        : `Devices now check every ${duration(value)}, from their next check.`,
    );
  });
  const typed = seconds.trim() === '' ? NaN : Number(seconds);
  const submit = () => {
    const invalid = check(limits.poll_interval_seconds, typed);
    setProblem(invalid);
    if (!invalid) void save.run(typed);
  };
  return (
    <PanelForm
      title="Change the interval"
      submit="Save the interval"
      disabled={save.busy}
      onSubmit={submit}
      error={problem ?? save.error}
      extra={
        settings.poll_interval_seconds !== null && (
          <button type="button" disabled={save.busy} onClick={() => void save.run(null)}>
            Use the service default
          </button>
        )
      }
    >
      <Field
        label="Seconds between update checks"
        hint={`From ${limits.poll_interval_seconds.minimum} (${duration(limits.poll_interval_seconds.minimum)}) to ${limits.poll_interval_seconds.maximum} (${duration(limits.poll_interval_seconds.maximum)})${Number.isInteger(typed) && typed > 0 ? `: ${typed} s is ${duration(typed)}` : ''}`}
      >
        <input
          type="number"
          name="poll_interval_seconds"
          value={seconds}
          {...inputLimits(limits.poll_interval_seconds)}
          onInput={(e) => setSeconds(e.currentTarget.value)}
        />
      </Field>
    </PanelForm>
  );
}

/** The customer's settings (GET/PATCH /settings): how often its devices check for updates. */
export function SettingsPage() {
  const me = useMe();
  const settings = useLoad(async () => ok(await api.GET('/settings')), []);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <section>
      <h1>Settings</h1>
      <h2>Polling interval</h2>
      <p class="hint">
        Every update-check answer tells the device when to check again (the <code>Poll-After</code> header): this interval, spread per device over half to one
        and a half times it so that a fleet reconnecting at once does not check again at once, and lengthened while the service is busy. Devices follow a change
        from their next check.
      </p>
      <ErrorMessage error={settings.error} />
      {settings.data === undefined ? (
        settings.loading && <Loading what="the settings" />
      ) : (
        <>
          <p id="poll-interval-state">
            Devices check every <strong>{duration(settings.data.effective_poll_interval_seconds)}</strong> ({settings.data.effective_poll_interval_seconds} s)
            {settings.data.poll_interval_seconds === null ? ', the service default.' : ', as set here.'}
          </p>
          {notice && <Notice>{notice}</Notice>}
          {me.can('devices:write') && (
            <PollIntervalForm
              key={`${settings.data.poll_interval_seconds}`}
              settings={settings.data}
              onSaved={(message) => {
                setNotice(message);
                settings.reload();
              }}
            />
          )}
        </>
      )}
    </section>
  );
}
