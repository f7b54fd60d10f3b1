import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { getFleetSummary as limits } from '../../api/limits.gen';
import { useQueryState } from '../../app/router';
import { BarChart } from '../../components/bar-chart';
import { ErrorMessage, Loading } from '../../components/feedback';
import { FilterForm } from '../../components/filters';
import { check, Field, inputLimits } from '../../components/form';
import { when } from '../../components/format';
import { useLoad } from '../../components/use-load';

const FILTERS = [
  ['hw_name', 'Hardware name'],
  ['hw_version', 'Hardware version'],
  ['fw_name', 'Firmware name'],
  ['tag', 'Tag'],
] as const;
const AGES = [
  ['under_1h', 'under an hour'],
  ['under_24h', '1 to 24 hours'],
  ['under_7d', '1 to 7 days'],
  ['under_30d', '7 to 30 days'],
  ['older', 'over 30 days'],
  ['never', 'never'],
] as const;

/** The fleet: devices by reported firmware version and by last-seen age, to follow a rollout. */
export function FleetPage() {
  const [query, setQuery] = useQueryState();
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(FILTERS.map(([name]) => [name, query.get(name) ?? ''])));
  const [problem, setProblem] = useState<string | null>(null);
  const summary = useLoad(
    async () =>
      ok(
        await api.GET('/fleet/summary', {
          params: { query: { ...Object.fromEntries(FILTERS.map(([name]) => [name, query.get(name) || undefined])), versions: 20 } },
        }),
      ),
    [query.toString()],
  );
  const apply = () => {
    const invalid = FILTERS.map(([name]) => (draft[name] ? check(limits[name], draft[name]) : null)).find(Boolean) ?? null;
    setProblem(invalid);
    if (!invalid) setQuery(draft);
  };
  const s = summary.data;
  /** The device list behind a bar: the same filters, active devices, and the bar's own. */
  const devicesWhere = (own: Record<string, string>) => {
    const filters = new URLSearchParams({ status: 'active' });
    for (const [name] of FILTERS) if (query.get(name)) filters.set(name, query.get(name)!);
    for (const [name, value] of Object.entries(own)) filters.set(name, value);
    return `/console/devices?${filters.toString()}`;
  };
  return (
    <section>
      <h1>Fleet</h1>
      <FilterForm label="Filter the fleet" onApply={apply} problem={problem}>
        {FILTERS.map(([name, label]) => (
          <Field key={name} label={label}>
            <input value={draft[name]} {...inputLimits(limits[name])} onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })} />
          </Field>
        ))}
      </FilterForm>
      <ErrorMessage error={summary.error} />
      {s === undefined ? (
        summary.loading && <Loading what="the fleet" />
      ) : (
        <>
          <p id="fleet-totals">
            {s.active.toLocaleString()} active devices ({s.withdrawn.toLocaleString()} withdrawn, not counted below), as of {when(s.at)}.
          </p>
          <div class="charts">
            <BarChart
              title="Devices by reported firmware version"
              rows={[
                ...s.versions.map((v) => ({ label: v.fw_version, value: v.devices, href: devicesWhere({ fw_version: v.fw_version }) })),
                ...(s.other_versions ? [{ label: 'other versions', value: s.other_versions }] : []),
                ...(s.never_reported ? [{ label: 'never reported', value: s.never_reported, href: devicesWhere({ last_seen: 'never' }) }] : []),
              ]}
            />
            <BarChart
              title="Devices by last update check"
              rows={AGES.map(([key, label]) => ({ label, value: s.last_seen[key], href: devicesWhere({ last_seen: key }) }))}
            />
          </div>
        </>
      )}
    </section>
  );
}
