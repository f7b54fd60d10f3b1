import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { previewDeviceUpdate as limits } from '../../api/limits.gen';
import { Link } from '../../app/router';
import { Empty, ErrorMessage, Loading } from '../../components/feedback';
import { check, Field, inputLimits } from '../../components/form';
import { bytes, day } from '../../components/format';
import { Table } from '../../components/table';
import { useLoad } from '../../components/use-load';

const LINE = [
  ['hw_name', 'Hardware name'],
  ['hw_version', 'Hardware version'],
  ['fw_name', 'Firmware name'],
  ['fw_version', 'Running version'],
] as const;

/** "What would this device get": the update check's answer for it now, by default for what it last reported. */
export function UpdatePreview({ hwid, version }: { hwid: string; version: number }) {
  const [asked, setAsked] = useState<Record<string, string>>({});
  const [draft, setDraft] = useState<Record<string, string>>({ hw_name: '', hw_version: '', fw_name: '', fw_version: '' });
  const [problem, setProblem] = useState<string | null>(null);
  const preview = useLoad(
    async () => ok(await api.GET('/devices/{hwid}/update-preview', { params: { path: { hwid }, query: { ...asked, type: asked.type || undefined } } })),
    [hwid, JSON.stringify(asked), version],
  );
  const ask = (event: Event) => {
    event.preventDefault();
    const given = Object.fromEntries(
      Object.entries(draft)
        .filter(([, v]) => v.trim())
        .map(([k, v]) => [k, v.trim()]),
    );
    const invalid =
      Object.entries(given)
        .map(([k, v]) => check(limits[k as keyof typeof limits], v))
        .find(Boolean) ?? null;
    setProblem(invalid);
    if (!invalid) setAsked(given);
  };
  const p = preview.data;
  return (
    <section class="panel" aria-labelledby="preview-heading">
      <h2 id="preview-heading">What this device would get</h2>
      <ErrorMessage error={preview.error} />
      {p === undefined ? (
        preview.loading && <Loading what="the update check's answer" />
      ) : (
        <>
          <p id="preview-check">
            {p.check
              ? `An update check of ${p.check.hw_name} / ${p.check.hw_version} / ${p.check.fw_name} running ${p.check.fw_version} (types ${p.check.type}) would answer:`
              : 'The device never checked in, so its product line and version are unknown: give them below.'}
          </p>
          {p.message && <p class="hint">{p.message}</p>}
          {p.items.length === 0 ? (
            <Empty>{p.check ? 'Nothing: no newer build is offered to this device now.' : 'No answer without a product line.'}</Empty>
          ) : (
            <Table columns={['Version', 'Type', 'Build date', 'General release', { label: 'Size', num: true }]}>
              {p.items.map((item) => (
                <tr key={item.id}>
                  <td>
                    <Link href={`/console/firmware/${item.id}`}>{item.fw_version}</Link>
                  </td>
                  <td>{item.fw_type}</td>
                  <td>{day(item.build_date)}</td>
                  <td>{item.general_release ? 'yes' : 'no'}</td>
                  <td class="num">{bytes(item.size_bytes)}</td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
      <details>
        <summary>Ask for another product line or version</summary>
        <form noValidate onSubmit={ask} aria-label="Update check to preview">
          <div class="form-grid">
            {LINE.map(([name, label]) => (
              <Field key={name} label={label}>
                <input value={draft[name]} {...inputLimits(limits[name])} onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })} />
              </Field>
            ))}
          </div>
          <div class="actions">
            <button type="submit">Preview</button>
          </div>
          <ErrorMessage error={problem} />
        </form>
      </details>
    </section>
  );
}
