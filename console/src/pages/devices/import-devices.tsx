import { useState } from 'preact/hooks';
import type { Paths } from '../../api/client';
import { upload, type UploadProgress } from '../../api/upload';
import { DropZone } from '../../components/dropzone';
import { ErrorMessage, Notice, Progress } from '../../components/feedback';
import { Table } from '../../components/table';

type ImportResult = Paths['/devices/import']['post']['responses'][200]['content']['application/json'];

/** The import's media type from the file: JSON by name or content, else CSV. */
function contentTypeOf(file: File, text: string): 'application/json' | 'text/csv' {
  if (/\.json$/i.test(file.name) || file.type === 'application/json' || /^\s*\[/.test(text)) return 'application/json';
  return 'text/csv';
}

/** Import devices from a CSV (`hwid,tags`, tags separated by spaces) or JSON file, with progress and the per-line errors. */
export function ImportDevices({ onImported }: { onImported: () => void }) {
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [result, setResult] = useState<{ file: string; answer: ImportResult } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = async (file: File) => {
    setError(null);
    setResult(null);
    try {
      const head = await file.slice(0, 64).text();
      setProgress({ loaded: 0, total: file.size });
      const answer = await upload<ImportResult>({
        method: 'POST',
        path: '/devices/import',
        body: file,
        contentType: contentTypeOf(file, head),
        onProgress: setProgress,
      });
      setResult({ file: file.name, answer });
      onImported();
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  };
  return (
    <section class="panel" aria-labelledby="import-heading">
      <h2 id="import-heading">Import devices</h2>
      <p class="hint">
        A CSV file with the header <code>hwid,tags</code> (tags separated by spaces), or a JSON array of <code>{'{"hwid", "tags", "attributes"}'}</code>.
        Existing devices are updated; lines with errors are listed and skipped, the others applied.
      </p>
      <DropZone label="a CSV or JSON file" accept=".csv,.json,text/csv,application/json" onFile={(file) => void run(file)} disabled={progress !== null} />
      {progress && <Progress label="Importing" loaded={progress.loaded} total={progress.total} />}
      <ErrorMessage error={error} />
      {result && (
        <div id="import-result">
          <Notice>
            {result.file}: {result.answer.created} created, {result.answer.updated} updated, {result.answer.unchanged} unchanged, {result.answer.error_count}{' '}
            with errors.
          </Notice>
          {result.answer.errors.length > 0 && (
            <Table
              columns={[{ label: 'Line', num: true }, 'HW id', 'Error']}
              caption={<>Lines not imported{result.answer.error_count > result.answer.errors.length ? ` (the first ${result.answer.errors.length})` : ''}</>}
            >
              {result.answer.errors.map((e) => (
                <tr key={e.line}>
                  <td class="num">{e.line}</td>
                  <td class="mono">{e.hwid ?? '—'}</td>
                  <td class="error">{e.error}</td>
                </tr>
              ))}
            </Table>
          )}
        </div>
      )}
    </section>
  );
}
