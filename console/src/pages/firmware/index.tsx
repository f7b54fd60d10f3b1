import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { listFirmware as limits } from '../../api/limits.gen';
import { useMe } from '../../app/identity';
import { Link, useQueryState } from '../../app/router';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { anyOf, FilterForm, QuerySelect } from '../../components/filters';
import { check, Field, inputLimits } from '../../components/form';
import { bytes, day } from '../../components/format';
import { Pager } from '../../components/pager';
import { Table } from '../../components/table';
import { useLoad } from '../../components/use-load';
import { RolloutBadge, type RolloutSummary } from '../rollout/shared';

const TEXT_FILTERS = [
  ['hw_name', 'Hardware name'],
  ['hw_version', 'Hardware version'],
  ['fw_name', 'Firmware name'],
  ['tag', 'Tag'],
] as const;
const PAGE_SIZES = [
  ['25', '25'],
  ['100', '100'],
  ['500', '500'],
] as const;
const TYPE_OPTIONS = anyOf(limits.fw_type.oneOf);
const RELEASE_OPTIONS = [
  ['', 'any'],
  ['true', 'general releases'],
  ['false', 'tagged releases'],
] as const;
const ORDER_OPTIONS = [
  ['desc', 'newest build date first'],
  ['asc', 'oldest build date first'],
] as const;

type FwType = (typeof limits.fw_type.oneOf)[number];

/** How many of the newest rollouts the list looks through for its builds' rollout states (the API's largest page). */
const ROLLOUTS_SCANNED = 500;

/** Each build's latest rollout among the customer's newest (GET /rollouts is newest first). */
async function latestRollouts(): Promise<Map<string, RolloutSummary>> {
  const list = ok(await api.GET('/rollouts', { params: { query: { limit: ROLLOUTS_SCANNED } } }));
  const byBuild = new Map<string, RolloutSummary>();
  for (const rollout of list.items) if (!byBuild.has(rollout.build_id)) byBuild.set(rollout.build_id, rollout);
  return byBuild;
}

function RolloutCell({ rollout, link }: { rollout: RolloutSummary | undefined; link: boolean }) {
  if (!rollout) return <>—</>;
  return (
    <RolloutBadge state={rollout.state} currentStage={rollout.current_stage} percents={rollout.stage_percents} buildId={link ? rollout.build_id : undefined} />
  );
}

/** Firmware builds: every filter of GET /firmware, the order, paging; kept in the address. */
export function FirmwarePage() {
  const me = useMe();
  const [query, setQuery] = useQueryState();
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(TEXT_FILTERS.map(([name]) => [name, query.get(name) ?? ''])));
  const [problem, setProblem] = useState<string | null>(null);
  const limit = Number(query.get('limit') ?? '25');
  const offset = Number(query.get('offset') ?? '0');
  const general = query.get('general');
  const builds = useLoad(async () => {
    const status = query.get('status');
    const order = query.get('order');
    return ok(
      await api.GET('/firmware', {
        params: {
          query: {
            hw_name: query.get('hw_name') || undefined,
            hw_version: query.get('hw_version') || undefined,
            fw_name: query.get('fw_name') || undefined,
            tag: query.get('tag') || undefined,
            fw_type: (query.get('fw_type') || undefined) as FwType | undefined,
            status: status === 'active' || status === 'withdrawn' ? status : undefined,
            general: general === 'true' ? true : general === 'false' ? false : undefined,
            order: order === 'asc' ? 'asc' : undefined,
            limit,
            offset,
          },
        },
      }),
    );
  }, [query.toString()]);
  const rollouts = useLoad(latestRollouts, []);
  // The rollout page shows devices too: its link needs devices:read.
  const linkRollouts = me.can('devices:read');
  const apply = () => {
    const invalid = TEXT_FILTERS.map(([name]) => check(limits[name], draft[name])).find(Boolean) ?? null;
    setProblem(invalid);
    if (!invalid) setQuery({ ...draft, offset: null });
  };
  const filtered = TEXT_FILTERS.some(([name]) => query.get(name)) || ['fw_type', 'status', 'general'].some((name) => query.get(name));
  return (
    <section>
      <h1>Firmware</h1>
      {me.can('fw:write') && (
        <p>
          <Link href="/console/firmware/upload" class="button primary">
            Upload a build
          </Link>
        </p>
      )}
      <FilterForm
        label="Filter builds"
        onApply={apply}
        problem={problem}
        onClear={() => {
          setDraft(Object.fromEntries(TEXT_FILTERS.map(([name]) => [name, ''])));
          setQuery(Object.fromEntries([...TEXT_FILTERS.map(([name]) => name), 'fw_type', 'status', 'general', 'order', 'offset'].map((n) => [n, null])));
        }}
      >
        {TEXT_FILTERS.map(([name, label]) => (
          <Field key={name} label={label}>
            <input name={name} value={draft[name]} {...inputLimits(limits[name])} onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })} />
          </Field>
        ))}
        <QuerySelect label="Type" name="fw_type" options={TYPE_OPTIONS} />
        <QuerySelect label="Status" name="status" options={anyOf(limits.status.oneOf)} />
        <QuerySelect label="Release" name="general" options={RELEASE_OPTIONS} />
        <QuerySelect label="Order" name="order" options={ORDER_OPTIONS} />
        <QuerySelect label="Per page" name="limit" options={PAGE_SIZES} />
      </FilterForm>
      <ErrorMessage error={builds.error} />
      {builds.data === undefined ? (
        builds.loading && <Loading what="builds" />
      ) : builds.data.items.length === 0 ? (
        <Empty>
          {filtered ? 'No build matches these filters. Clear them to see every build.' : 'No builds yet.'}{' '}
          {me.can('fw:write') && !filtered && <Link href="/console/firmware/upload">Upload the first build.</Link>}
        </Empty>
      ) : (
        <>
          <Table
            columns={[
              'Version',
              'Product line',
              'Type',
              'Build date',
              'Release',
              'Rollout',
              'Status',
              { label: 'Size', num: true },
              { label: 'Downloads', num: true },
            ]}
            caption={
              <>
                Builds {offset + 1} to {offset + builds.data.items.length}
              </>
            }
          >
            {builds.data.items.map((build) => (
              <tr key={build.id}>
                <td>
                  <Link href={`/console/firmware/${build.id}`}>{build.fw_version}</Link>
                </td>
                <td class="mono">
                  {build.hw_name} / {build.hw_version} / {build.fw_name}
                </td>
                <td>{build.fw_type}</td>
                <td>{day(build.build_date)}</td>
                <td>
                  {build.general_release
                    ? 'general'
                    : build.tags.length
                      ? `tags: ${build.tags.join(', ')}`
                      : build.tag_filter_disabled
                        ? 'all known devices'
                        : 'nobody yet'}
                </td>
                <td>
                  <RolloutCell rollout={rollouts.data?.get(build.id)} link={linkRollouts} />
                </td>
                <td class={`status-${build.status}`}>{build.status}</td>
                <td class="num">{bytes(build.size_bytes)}</td>
                <td class="num">{build.download_count}</td>
              </tr>
            ))}
          </Table>
          <Pager offset={offset} limit={limit} nextOffset={builds.data.next_offset} onOffset={(next) => setQuery({ offset: next ? String(next) : null })} />
        </>
      )}
    </section>
  );
}
