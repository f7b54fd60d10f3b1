import { useState } from 'preact/hooks';
import type { Paths } from '../../api/client';
import { uploadFirmwareByPath as limits } from '../../api/limits.gen';
import { upload, type UploadProgress } from '../../api/upload';
import { Link, navigate } from '../../app/router';
import { DropZone } from '../../components/dropzone';
import { ErrorMessage, Progress } from '../../components/feedback';
import { check, Field, inputLimits } from '../../components/form';
import { bytes } from '../../components/format';
import { Table } from '../../components/table';

type ParseResult = Paths['/firmware/parse']['post']['responses'][200]['content']['application/json'];
type Build = Paths['/firmware/{id}']['get']['responses'][200]['content']['application/json'];

const LINE_FIELDS = [
  ['hw_name', 'Hardware name', 'e.g. board-x'],
  ['hw_version', 'Hardware version', 'e.g. rev2'],
  ['fw_name', 'Firmware name', 'e.g. main'],
] as const;
const OVERRIDES = [
  ['fw_version', 'Version', 'Leave empty to take it from the what string'],
  ['build_date', 'Build date (RFC 3339)', 'e.g. 2026-11-20T00:00:00Z; empty: from the what string'],
] as const;

/**
 * Upload a build: the file (drag and drop), its what strings as the service parses them
 * (POST /firmware/parse, nothing stored), the product line, release and notes, then the
 * upload with a progress bar; the new build's page follows.
 */
export function FirmwareUploadPage() {
  const [file, setFile] = useState<File | null>(null);
  const [parsed, setParsed] = useState<ParseResult | null>(null);
  const [whatIndex, setWhatIndex] = useState(0);
  const [fields, setFields] = useState<Record<string, string>>({ hw_name: '', hw_version: '', fw_name: '', fw_version: '', build_date: '', fw_type: '' });
  const [general, setGeneral] = useState(false);
  const [notes, setNotes] = useState('');
  const [progress, setProgress] = useState<{ label: string; value: UploadProgress } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const busy = progress !== null;

  const choose = async (chosen: File) => {
    setFile(chosen);
    setParsed(null);
    setError(null);
    const form = new FormData();
    form.append('firmware', chosen);
    try {
      setProgress({ label: 'Reading the what strings', value: { loaded: 0, total: chosen.size } });
      const result = await upload<ParseResult>({
        method: 'POST',
        path: '/firmware/parse',
        body: form,
        onProgress: (value) => setProgress({ label: 'Reading the what strings', value }),
      });
      setParsed(result);
      setWhatIndex(result.what_strings.find((w) => w.error === null)?.index ?? 0);
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  };

  const store = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    const invalid = LINE_FIELDS.map(([name]) => check(limits[name], fields[name].trim())).find(Boolean);
    if (invalid) {
      setError(new Error(invalid));
      return;
    }
    setError(null);
    const query = new URLSearchParams({ what_index: String(whatIndex), general_release: String(general) });
    for (const name of ['fw_version', 'build_date', 'fw_type']) if (fields[name].trim()) query.set(name, fields[name].trim());
    const form = new FormData();
    form.append('firmware', file);
    if (notes.trim()) form.append('notes', new Blob([notes], { type: 'text/plain' }), 'notes.txt');
    const path = `/firmware/${LINE_FIELDS.map(([name]) => encodeURIComponent(fields[name].trim())).join('/')}?${query.toString()}`;
    try {
      setProgress({ label: 'Uploading', value: { loaded: 0, total: file.size } });
      const build = await upload<Build>({ method: 'PUT', path, body: form, onProgress: (value) => setProgress({ label: 'Uploading', value }) });
      navigate(`/console/firmware/${build.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  };

  const chosenString = parsed?.what_strings.find((w) => w.index === whatIndex);
  return (
    <section>
      <h1>Upload a build</h1>
      <p>
        <Link href="/console/firmware">Back to the builds</Link>
      </p>
      <DropZone label="a firmware file" onFile={(f) => void choose(f)} disabled={busy} />
      {progress && <Progress label={progress.label} loaded={progress.value.loaded} total={progress.value.total} />}
      <ErrorMessage error={error} />
      {file && parsed && (
        <form class="panel" noValidate onSubmit={(e) => void store(e)} aria-label="Build details">
          <h2>{file.name}</h2>
          <dl class="facts">
            <dt>Size</dt>
            <dd>{bytes(parsed.size_bytes)}</dd>
            <dt>SHA-256</dt>
            <dd class="mono">{parsed.sha256}</dd>
          </dl>
          {parsed.what_strings.length === 0 ? (
            <p class="error" role="alert">
              No what string (<code>@(#)&lt;version&gt;, &lt;date&gt;, &lt;type&gt;</code>) in this file: give the version, build date and type below.
            </p>
          ) : (
            <fieldset>
              <legend>What string to take the version, date and type from ({parsed.total} found)</legend>
              <Table columns={['Use', 'Text', 'Version', 'Build date', 'Type']}>
                {parsed.what_strings.map((w) => (
                  <tr key={w.index}>
                    <td>
                      <input
                        type="radio"
                        name="what_index"
                        aria-label={`Use what string ${w.index}`}
                        checked={w.index === whatIndex}
                        onChange={() => setWhatIndex(w.index)}
                      />
                    </td>
                    <td class="mono">{w.text}</td>
                    {w.error === null ? (
                      <>
                        <td>{w.fw_version}</td>
                        <td>{w.build_date}</td>
                        <td>{w.fw_type}</td>
                      </>
                    ) : (
                      <td colSpan={3} class="error">
                        {w.error}
                      </td>
                    )}
                  </tr>
                ))}
              </Table>
            </fieldset>
          )}
          <h3>Product line</h3>
          <div class="form-grid">
            {LINE_FIELDS.map(([name, label, hint]) => (
              <Field key={name} label={label} hint={hint}>
                <input
                  name={name}
                  value={fields[name]}
                  required
                  {...inputLimits(limits[name])}
                  onInput={(e) => setFields({ ...fields, [name]: e.currentTarget.value })}
                />
              </Field>
            ))}
          </div>
          <details open={!chosenString || chosenString.error !== null}>
            <summary>Version, date and type by hand</summary>
            <div class="form-grid">
              {OVERRIDES.map(([name, label, hint]) => (
                <Field key={name} label={label} hint={hint}>
                  <input
                    name={name}
                    value={fields[name]}
                    {...inputLimits(limits[name])}
                    onInput={(e) => setFields({ ...fields, [name]: e.currentTarget.value })}
                  />
                </Field>
              ))}
              <Field label="Type" hint="Empty: from the what string">
                <select value={fields.fw_type} onChange={(e) => setFields({ ...fields, fw_type: e.currentTarget.value })}>
                  <option value="">from the what string</option>
                  <option value="AFI">AFI</option>
                  <option value="EFI">EFI</option>
                  <option value="MFI">MFI</option>
                </select>
              </Field>
            </div>
          </details>
          <h3>Release</h3>
          <Field label="General release: offer it to every device at once" inline>
            <input type="checkbox" checked={general} onChange={(e) => setGeneral(e.currentTarget.checked)} />
          </Field>
          <p class="hint">Otherwise it reaches the devices sharing a tag you give it on its page.</p>
          <Field label="Release notes (optional)">
            <textarea rows={5} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />
          </Field>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Store the build
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
