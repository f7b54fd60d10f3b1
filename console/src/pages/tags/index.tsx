import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { renameTag as limits } from '../../api/limits.gen';
import { useMe } from '../../app/identity';
import { Link } from '../../app/router';
import { Empty, ErrorMessage, Loading, Notice } from '../../components/feedback';
import { check } from '../../components/form';
import { Table } from '../../components/table';
import { useAction, useLoad } from '../../components/use-load';

/** Tags across builds and devices: counts, rename (merging onto an existing tag), delete. */
export function TagsPage() {
  const me = useMe();
  const tags = useLoad(async () => ok(await api.GET('/tags')).items, []);
  const [editing, setEditing] = useState<{ tag: string; mode: 'rename' | 'delete'; to: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const rename = useAction(async (tag: string, to: string) => {
    const invalid = check(limits.to, to);
    setProblem(invalid);
    if (invalid) return;
    const merged = tags.data?.some((t) => t.tag === to);
    const result = ok(await api.POST('/tags/{tag}/rename', { params: { path: { tag } }, body: { to } }));
    setNotice(`${tag} is now ${to}${merged ? ' (merged)' : ''}: ${result.firmware} builds and ${result.devices} devices carry it.`);
    setEditing(null);
    tags.reload();
  });
  const remove = useAction(async (tag: string) => {
    ok(await api.DELETE('/tags/{tag}', { params: { path: { tag } } }));
    setNotice(`${tag} is removed from every build and device.`);
    setEditing(null);
    tags.reload();
  });
  const canWrite = me.can('tags:write');
  return (
    <section>
      <h1>Tags</h1>
      <p class="hint">A build reaches the devices that share one of its tags. Tags are given on a build's or a device's page.</p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={tags.error ?? rename.error ?? remove.error} />
      {tags.data === undefined ? (
        tags.loading && <Loading what="tags" />
      ) : tags.data.length === 0 ? (
        <Empty>
          No tags yet. Give a build a tag on its page (<Link href="/console/firmware">Firmware</Link>) and the same tag to devices (
          <Link href="/console/devices">Devices</Link>).
        </Empty>
      ) : (
        <Table columns={['Tag', { label: 'Builds', num: true }, { label: 'Devices', num: true }, ...(canWrite ? [{ label: 'Action', hidden: true }] : [])]}>
          {tags.data.map((t) => (
            <tr key={t.tag}>
              <td>
                <Link href={`/console/devices?tag=${encodeURIComponent(t.tag)}`}>{t.tag}</Link>
              </td>
              <td class="num">
                <Link href={`/console/firmware?tag=${encodeURIComponent(t.tag)}`}>{t.firmware}</Link>
              </td>
              <td class="num">{t.devices}</td>
              {canWrite && (
                <td>
                  {editing?.tag === t.tag && editing.mode === 'rename' ? (
                    <form
                      class="actions"
                      noValidate
                      onSubmit={(event) => {
                        event.preventDefault();
                        void rename.run(t.tag, editing.to.trim());
                      }}
                    >
                      <label class="field inline">
                        <span>New name for {t.tag}</span>
                        <input value={editing.to} maxLength={64} onInput={(e) => setEditing({ ...editing, to: e.currentTarget.value })} />
                      </label>
                      {tags.data?.some((other) => other.tag === editing.to.trim() && other.tag !== t.tag) && (
                        <span class="error" role="status">
                          {editing.to.trim()} exists: renaming merges both tags into it.
                        </span>
                      )}
                      <button type="submit" class="primary" disabled={rename.busy}>
                        Rename
                      </button>
                      <button type="button" onClick={() => setEditing(null)}>
                        Cancel
                      </button>
                      <ErrorMessage error={problem} />
                    </form>
                  ) : editing?.tag === t.tag && editing.mode === 'delete' ? (
                    <span class="actions">
                      <span>
                        Remove {t.tag} from {t.firmware} builds and {t.devices} devices?
                      </span>
                      <button type="button" class="danger" disabled={remove.busy} onClick={() => void remove.run(t.tag)}>
                        Yes, delete
                      </button>
                      <button type="button" onClick={() => setEditing(null)}>
                        Keep
                      </button>
                    </span>
                  ) : (
                    <span class="actions">
                      <button type="button" aria-label={`Rename ${t.tag}`} onClick={() => setEditing({ tag: t.tag, mode: 'rename', to: t.tag })}>
                        Rename
                      </button>
                      <button type="button" class="danger" aria-label={`Delete ${t.tag}`} onClick={() => setEditing({ tag: t.tag, mode: 'delete', to: '' })}>
                        Delete
                      </button>
                    </span>
                  )}
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
