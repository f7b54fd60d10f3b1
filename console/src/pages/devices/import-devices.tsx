import { useState } from 'preact/hooks';
import type { Paths } from '../../api/client';
import { upload, type UploadProgress } from '../../api/upload';
import { DropZone } from '../../components/dropzone';
import { ErrorMessage, Notice, Progress } from '../../components/feedback';
import { Table } from '../../components/table';

type ImportResult = Paths['/devices/import']['post']['responses'][200]['content']['application/json'];
type ImportChange = NonNullable<ImportResult['changes']>[number];
type ContentType = 'application/json' | 'text/csv';

/** The import's media type from the file: JSON by name or content, else CSV. */
function contentTypeOf(file: File, text: string): ContentType {
  if (/\.json$/i.test(file.name) || file.type === 'application/json' || /^\s*\[/.test(text)) return 'application/json';
  return 'text/csv';
}

function tagList(tags: readonly string[] | null): string {
  return tags === null ? '—' : tags.length ? tags.join(' ') : '(none)';
}

/** What a change does, in words: a new device, or what changes on an existing one. */
function changeText(change: ImportChange): string {
  if (change.change === 'create') return 'new device';
  const what = [];
  if (tagList(change.tags_before) !== tagList(change.tags_after)) what.push('tags');
  if (change.attributes_changed) what.push('attributes');
  return `${what.join(' and ')} change`;
}

/** The rows refused (a dry run's or an import's), with their line and why. */
function RefusedRows({ answer }: { answer: ImportResult }) {
  if (answer.errors.length === 0) return null;
  return (
    <Table
      columns={[{ label: 'Line', num: true }, 'HW id', 'Error']}
      caption={<>Lines not imported{answer.error_count > answer.errors.length ? ` (the first ${answer.errors.length})` : ''}</>}
    >
      {answer.errors.map((e) => (
        <tr key={e.line}>
          <td class="num">{e.line}</td>
          <td class="mono">{e.hwid ?? '—'}</td>
          <td class="error">{e.error}</td>
        </tr>
      ))}
    </Table>
  );
}

/**
 * Import devices from a CSV (`hwid,tags`, tags separated by spaces) or JSON file. The file is
 * first sent as a dry run (`dry_run=true`: the service stores nothing and says what would
 * change), so the person sees which devices are new and whose tags change (old → new) before
 * anything is stored; only "Import" sends it for real, with progress and the per-line errors.
 */
export function ImportDevices({ onImported }: { onImported: () => void }) {
  const [progress, setProgress] = useState<{ label: string; value: UploadProgress } | null>(null);
  const [preview, setPreview] = useState<{ file: File; contentType: ContentType; answer: ImportResult } | null>(null);
  const [result, setResult] = useState<{ file: string; answer: ImportResult } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const send = (file: File, contentType: ContentType, dryRun: boolean, label: string) =>
    upload<ImportResult>({
      method: 'POST',
      path: dryRun ? '/devices/import?dry_run=true' : '/devices/import',
      body: file,
      contentType,
      onProgress: (value) => setProgress({ label, value }),
    });
  const check = async (file: File) => {
    setError(null);
    setResult(null);
    setPreview(null);
    try {
      const contentType = contentTypeOf(file, await file.slice(0, 64).text());
      setProgress({ label: 'Checking', value: { loaded: 0, total: file.size } });
      setPreview({ file, contentType, answer: await send(file, contentType, true, 'Checking') });
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  };
  const apply = async () => {
    if (!preview) return;
    setError(null);
    try {
      setProgress({ label: 'Importing', value: { loaded: 0, total: preview.file.size } });
      const answer = await send(preview.file, preview.contentType, false, 'Importing');
      setPreview(null);
      setResult({ file: preview.file.name, answer });
      onImported();
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  };
  const dry = preview?.answer;
  const changes = dry ? dry.created + dry.updated : 0;
  return (
    <section class="panel" aria-labelledby="import-heading">
      <h2 id="import-heading">Import devices</h2>
      <p class="hint">
        A CSV file with the header <code>hwid,tags</code> (tags separated by spaces), or a JSON array of <code>{'{"hwid", "tags", "attributes"}'}</code>.
        Existing devices are updated (a given tags cell replaces their tags); lines with errors are listed and skipped. You see what will change before anything
        is stored.
      </p>
      <DropZone label="a CSV or JSON file" accept=".csv,.json,text/csv,application/json" onFile={(file) => void check(file)} disabled={progress !== null} />
      {progress && <Progress label={progress.label} loaded={progress.value.loaded} total={progress.value.total} />}
      <ErrorMessage error={error} />
      {preview && dry && (
        <div id="import-preview" role="region" aria-label="What the import would change">
          <h3>What the import of {preview.file.name} would change</h3>
          <Notice>
            {dry.created} new, {dry.updated} changed, {dry.unchanged} unchanged, {dry.error_count} with errors. Nothing is stored yet.
          </Notice>
          {dry.changes && dry.changes.length > 0 && (
            <Table
              label="Changes"
              columns={[{ label: 'Line', num: true }, 'HW id', 'Change', 'Tags now', 'Tags after']}
              caption={<>Devices the import creates or changes{changes > dry.changes.length ? ` (the first ${dry.changes.length} of ${changes})` : ''}</>}
            >
              {dry.changes.map((c) => (
                <tr key={c.line}>
                  <td class="num">{c.line}</td>
                  <td class="mono">{c.hwid}</td>
                  <td>{changeText(c)}</td>
                  <td>{tagList(c.tags_before)}</td>
                  <td>{tagList(c.tags_after)}</td>
                </tr>
              ))}
            </Table>
          )}
          <RefusedRows answer={dry} />
          <div class="actions">
            {changes > 0 && (
              <button type="button" class="primary" disabled={progress !== null} onClick={() => void apply()}>
                Import: {changes} {changes === 1 ? 'change' : 'changes'}
              </button>
            )}
            <button type="button" disabled={progress !== null} onClick={() => setPreview(null)}>
              {changes > 0 ? 'Cancel' : 'Close'}
            </button>
          </div>
        </div>
      )}
      {result && (
        <div id="import-result">
          <Notice>
            {result.file}: {result.answer.created} created, {result.answer.updated} updated, {result.answer.unchanged} unchanged, {result.answer.error_count}{' '}
            with errors.
          </Notice>
          <RefusedRows answer={result.answer} />
        </div>
      )}
    </section>
  );
}
