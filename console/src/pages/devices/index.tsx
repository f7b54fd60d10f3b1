import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { listDevices as limits } from '../../api/limits.gen';
import { useMe } from '../../app/identity';
import { Link, useQueryState } from '../../app/router';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { anyOf, FilterForm, QuerySelect } from '../../components/filters';
import { check, Field, inputLimits } from '../../components/form';
import { when } from '../../components/format';
import { Pager } from '../../components/pager';
import { Table } from '../../components/table';
import { useLoad } from '../../components/use-load';
import { CreateDevice } from './create-device';
import { ImportDevices } from './import-devices';

const PAGE_SIZE = 50;
const TAG_MODE_OPTIONS = [
  ['any', 'any of the tags'],
  ['all', 'all of the tags'],
] as const;
const LAST_SEEN_OPTIONS = [
  ['', 'any time or never'],
  ['under_1h', 'under an hour ago'],
  ['under_24h', '1 to 24 hours ago'],
  ['under_7d', '1 to 7 days ago'],
  ['under_30d', '7 to 30 days ago'],
  ['older', 'over 30 days ago'],
  ['never', 'never'],
] as const;
const LAST_SEEN_AGES = LAST_SEEN_OPTIONS.flatMap(([value]) => (value === '' ? [] : [value]));
/** What the last update check reported: the fleet page's bars link here with these. */
const REPORTED = [
  ['fw_version', 'Reported version'],
  ['hw_name', 'Reported hardware name'],
  ['hw_version', 'Reported hardware version'],
  ['fw_name', 'Reported firmware name'],
] as const;
const KEYS_OPTIONS = [
  ['', 'with or without'],
  ['true', 'with public keys'],
  ['false', 'without keys'],
] as const;

/** The device registry: every filter of GET /devices (kept in the address), register, import. */
export function DevicesPage() {
  const me = useMe();
  const [query, setQuery] = useQueryState();
  const [q, setQ] = useState(query.get('q') ?? '');
  const [tags, setTags] = useState(query.getAll('tag').join(' '));
  const [reported, setReported] = useState<Record<string, string>>(() => Object.fromEntries(REPORTED.map(([name]) => [name, query.get(name) ?? ''])));
  const [problem, setProblem] = useState<string | null>(null);
  const offset = Number(query.get('offset') ?? '0');
  const devices = useLoad(async () => {
    const status = query.get('status');
    const hasKeys = query.get('has_keys');
    const lastSeen = LAST_SEEN_AGES.find((age) => age === query.get('last_seen'));
    return ok(
      await api.GET('/devices', {
        params: {
          query: {
            q: query.get('q') || undefined,
            tag: query.getAll('tag').length ? query.getAll('tag') : undefined,
            tag_mode: query.get('tag_mode') === 'all' ? 'all' : undefined,
            status: status === 'active' || status === 'withdrawn' ? status : undefined,
            has_keys: hasKeys === 'true' ? true : hasKeys === 'false' ? false : undefined,
            ...Object.fromEntries(REPORTED.map(([name]) => [name, query.get(name) || undefined])),
            last_seen: lastSeen,
            limit: PAGE_SIZE,
            offset,
          },
        },
      }),
    );
  }, [query.toString()]);
  const apply = () => {
    const tagList = tags.split(/\s+/).filter(Boolean);
    const invalid =
      check(limits.q, q) ??
      check(limits.tag, tagList) ??
      REPORTED.map(([name]) => (reported[name] ? check(limits[name], reported[name]) : null)).find(Boolean) ??
      null;
    setProblem(invalid);
    if (!invalid) setQuery({ q, tag: tagList, ...reported, offset: null });
  };
  const filtered = ['q', 'tag', 'status', 'has_keys', 'last_seen', ...REPORTED.map(([name]) => name)].some((name) => query.get(name));
  const canWrite = me.can('devices:write');
  return (
    <section>
      <h1>Devices</h1>
      <FilterForm
        label="Filter devices"
        onApply={apply}
        problem={problem}
        onClear={() => {
          setQ('');
          setTags('');
          setReported(Object.fromEntries(REPORTED.map(([name]) => [name, ''])));
          setQuery({
            q: null,
            tag: null,
            tag_mode: null,
            status: null,
            has_keys: null,
            last_seen: null,
            ...Object.fromEntries(REPORTED.map(([name]) => [name, null])),
            offset: null,
          });
        }}
      >
        <Field label="HW id starts with" hint="Case-sensitive">
          <input name="q" value={q} {...inputLimits(limits.q)} onInput={(e) => setQ(e.currentTarget.value)} />
        </Field>
        <Field label="Tags" hint="Separated by spaces">
          <input name="tag" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        </Field>
        <QuerySelect label="Devices with" name="tag_mode" options={TAG_MODE_OPTIONS} />
        <QuerySelect label="Status" name="status" options={anyOf(limits.status.oneOf)} />
        <QuerySelect label="Keys" name="has_keys" options={KEYS_OPTIONS} />
        <QuerySelect label="Last update check" name="last_seen" options={LAST_SEEN_OPTIONS} />
        {REPORTED.map(([name, label]) => (
          <Field key={name} label={label}>
            <input
              name={name}
              value={reported[name]}
              {...inputLimits(limits[name])}
              onInput={(e) => setReported({ ...reported, [name]: e.currentTarget.value })}
            />
          </Field>
        ))}
      </FilterForm>
      <ErrorMessage error={devices.error} />
      {/* One element whatever the list shows: the panels below keep their state (an import's report) when it changes. */}
      <div class="list">
        {devices.data === undefined ? (
          devices.loading && <Loading what="devices" />
        ) : devices.data.items.length === 0 ? (
          <Empty>
            {filtered
              ? 'No device matches these filters. Clear them to see every device.'
              : canWrite
                ? 'No devices yet: register one or import a file below.'
                : 'No devices yet.'}
          </Empty>
        ) : (
          <>
            <Table columns={['HW id', 'Status', 'Tags', 'Keys', 'Last seen', 'Reported version']}>
              {devices.data.items.map((device) => (
                <tr key={device.hwid}>
                  <td>
                    <Link href={`/console/devices/${encodeURIComponent(device.hwid)}`}>{device.hwid}</Link>
                  </td>
                  <td class={`status-${device.status}`}>{device.status}</td>
                  <td>{device.tags.join(' ') || '—'}</td>
                  <td>{device.has_keys ? device.keys.length : 'none'}</td>
                  <td>{device.last_seen_at ? when(device.last_seen_at) : 'never'}</td>
                  <td>{device.last_fw_version ?? '—'}</td>
                </tr>
              ))}
            </Table>
            <Pager
              offset={offset}
              limit={PAGE_SIZE}
              nextOffset={devices.data.next_offset}
              onOffset={(next) => setQuery({ offset: next ? String(next) : null })}
            />
          </>
        )}
      </div>
      {canWrite && (
        <>
          <CreateDevice canTag={me.can('tags:write')} />
          <ImportDevices onImported={devices.reload} />
        </>
      )}
    </section>
  );
}
