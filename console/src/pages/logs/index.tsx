import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { listLogFiles as limits } from '../../api/limits.gen';
import { session } from '../../api/session';
import { useQueryState } from '../../app/router';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { FilterForm } from '../../components/filters';
import { check, Field, inputLimits } from '../../components/form';
import { bytes, when } from '../../components/format';
import { Pager } from '../../components/pager';
import { useLoad } from '../../components/use-load';
import { Person } from '../../components/person';

const PAGE_SIZE = 50;

/** A day (YYYY-MM-DD) as the RFC 3339 start of that day in UTC, or of the next day for an upper bound. */
function dayBound(day: string, end: boolean): string | undefined {
  if (!day) return undefined;
  const date = new Date(`${day}T00:00:00Z`);
  if (end) date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString();
}

/** Log files: by name prefix and upload date, their metadata, download. */
export function LogsPage() {
  const [query, setQuery] = useQueryState();
  const [prefix, setPrefix] = useState(query.get('prefix') ?? '');
  const [after, setAfter] = useState(query.get('after') ?? '');
  const [before, setBefore] = useState(query.get('before') ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const offset = Number(query.get('offset') ?? '0');
  const files = useLoad(
    async () =>
      ok(
        await api.GET('/logdata', {
          params: {
            query: {
              prefix: query.get('prefix') || undefined,
              uploaded_after: dayBound(query.get('after') ?? '', false),
              uploaded_before: dayBound(query.get('before') ?? '', true),
              limit: PAGE_SIZE,
              offset,
            },
          },
        }),
      ),
    [query.toString()],
  );
  const apply = () => {
    const invalid = check(limits.prefix, prefix.trim());
    setProblem(invalid);
    if (!invalid) setQuery({ prefix: prefix.trim(), after, before, offset: null });
  };
  const filtered = ['prefix', 'after', 'before'].some((n) => query.get(n));
  return (
    <section>
      <h1>Log files</h1>
      <p class="hint">Devices and programs upload log files with PUT /logdata/&lt;name&gt; (128 hex characters); they never change once stored.</p>
      <FilterForm
        label="Filter log files"
        onApply={apply}
        problem={problem}
        onClear={() => {
          setPrefix('');
          setAfter('');
          setBefore('');
          setQuery({ prefix: null, after: null, before: null, offset: null });
        }}
      >
        <Field label="Name starts with" hint="Hex characters">
          <input value={prefix} {...inputLimits(limits.prefix)} onInput={(e) => setPrefix(e.currentTarget.value)} />
        </Field>
        <Field label="Uploaded from (day, UTC)">
          <input type="date" value={after} onInput={(e) => setAfter(e.currentTarget.value)} />
        </Field>
        <Field label="Uploaded until (day, UTC)">
          <input type="date" value={before} onInput={(e) => setBefore(e.currentTarget.value)} />
        </Field>
      </FilterForm>
      <ErrorMessage error={files.error} />
      {files.data === undefined ? (
        files.loading && <Loading what="log files" />
      ) : files.data.items.length === 0 ? (
        <Empty>{filtered ? 'No log file matches these filters.' : 'No log files yet. They appear here once a device or program uploads one.'}</Empty>
      ) : (
        <>
          <ul class="log-files">
            {files.data.items.map((file) => (
              <li key={file.name} class="panel">
                <details>
                  <summary>
                    <span class="mono">{file.name.slice(0, 16)}…</span> {bytes(file.size_bytes)}, uploaded {when(file.uploaded_at)}
                  </summary>
                  <dl class="facts">
                    <dt>Name</dt>
                    <dd class="mono">{file.name}</dd>
                    <dt>Size</dt>
                    <dd>{file.size_bytes.toLocaleString()} bytes</dd>
                    <dt>SHA-256</dt>
                    <dd class="mono">{file.sha256}</dd>
                    <dt>Content type</dt>
                    <dd>{file.content_type}</dd>
                    <dt>Uploaded by</dt>
                    <dd>
                      <Person actor={file.uploaded_by} />
                    </dd>
                    <dt>Downloads</dt>
                    <dd>{file.download_count}</dd>
                    <dt>Last accessed</dt>
                    <dd>{file.last_accessed_at ? when(file.last_accessed_at) : 'never'}</dd>
                  </dl>
                </details>
                <a class="button" href={session.url(`/logdata/${file.name}`)} download>
                  Download
                </a>
              </li>
            ))}
          </ul>
          <Pager offset={offset} limit={PAGE_SIZE} nextOffset={files.data.next_offset} onOffset={(next) => setQuery({ offset: next ? String(next) : null })} />
        </>
      )}
    </section>
  );
}
