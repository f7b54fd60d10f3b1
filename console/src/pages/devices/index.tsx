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
  const [problem, setProblem] = useState<string | null>(null);
  const offset = Number(query.get('offset') ?? '0');
  const devices = useLoad(async () => {
    const status = query.get('status');
    const hasKeys = query.get('has_keys');
    return ok(
      await api.GET('/devices', {
        params: {
          query: {
            q: query.get('q') || undefined,
            tag: query.getAll('tag').length ? query.getAll('tag') : undefined,
            tag_mode: query.get('tag_mode') === 'all' ? 'all' : undefined,
            status: status === 'active' || status === 'withdrawn' ? status : undefined,
            has_keys: hasKeys === 'true' ? true : hasKeys === 'false' ? false : undefined,
            limit: PAGE_SIZE,
            offset,
          },
        },
      }),
    );
  }, [query.toString()]);
  const apply = () => {
    const tagList = tags.split(/\s+/).filter(Boolean);
    const invalid = check(limits.q, q) ?? check(limits.tag, tagList);
    setProblem(invalid);
    if (!invalid) setQuery({ q, tag: tagList, offset: null });
  };
  const filtered = ['q', 'tag', 'status', 'has_keys'].some((name) => query.get(name));
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
          setQuery({ q: null, tag: null, tag_mode: null, status: null, has_keys: null, offset: null });
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
