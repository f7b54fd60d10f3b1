import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { createDevice as limits } from '../../api/limits.gen';
import { navigate } from '../../app/router';
import { ErrorMessage } from '../../components/feedback';
import { check, Field } from '../../components/form';
import { useAction } from '../../components/use-load';

/** Register one device: HW id, tags (space-separated), attributes (a JSON object). */
export function CreateDevice({ canTag }: { canTag: boolean }) {
  const [hwid, setHwid] = useState('');
  const [tags, setTags] = useState('');
  const [attributes, setAttributes] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const create = useAction(async () => {
    const tagList = tags.split(/\s+/).filter(Boolean);
    let parsed: Record<string, unknown> | undefined;
    let invalid = check(limits.hwid, hwid) ?? check(limits.tags, tagList);
    if (!invalid && attributes.trim()) {
      try {
        parsed = JSON.parse(attributes) as Record<string, unknown>;
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) invalid = limits.attributes.message;
      } catch {
        invalid = limits.attributes.message;
      }
    }
    setProblem(invalid);
    if (invalid) return;
    const device = ok(await api.POST('/devices', { body: { hwid, ...(tagList.length ? { tags: tagList } : {}), ...(parsed ? { attributes: parsed } : {}) } }));
    navigate(`/console/devices/${encodeURIComponent(device.hwid)}`);
  });
  return (
    <form
      class="panel"
      noValidate
      aria-labelledby="create-heading"
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <h2 id="create-heading">Register a device</h2>
      <div class="form-grid">
        <Field label="HW id" hint="1 to 64 printable characters, no spaces; case matters">
          <input name="hwid" value={hwid} required maxLength={64} onInput={(e) => setHwid(e.currentTarget.value)} />
        </Field>
        {canTag && (
          <Field label="Tags" hint="Separated by spaces, e.g. beta eu">
            <input name="tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
          </Field>
        )}
        <Field label="Attributes (JSON object, optional)" hint='e.g. {"site": "Berlin"}'>
          <input name="attributes" value={attributes} onInput={(e) => setAttributes(e.currentTarget.value)} />
        </Field>
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Register device
        </button>
      </div>
      <ErrorMessage error={problem ?? create.error} />
    </form>
  );
}
