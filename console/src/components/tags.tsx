import { useState } from 'preact/hooks';
import { ErrorMessage } from './feedback';
import { check, type FieldLimits, inputLimits } from './form';
import { useAction } from './use-load';

/** How tags change (the role may change them): the API calls, and what to do after each change (its message). */
export interface TagEdits {
  add(tag: string): Promise<unknown>;
  remove(tag: string): Promise<unknown>;
  changed(message: string): void;
}

/** A set of tags with remove buttons and an add field when `edit` is given; else the tags as text. */
export function TagEditor({ tags, limits, label, edit }: { tags: readonly string[]; limits?: FieldLimits; label: string; edit?: TagEdits }) {
  const onAdd = edit
    ? async (tag: string) => {
        await edit.add(tag);
        edit.changed(`Tag ${tag} added.`);
      }
    : undefined;
  const onRemove = edit
    ? async (tag: string) => {
        await edit.remove(tag);
        edit.changed(`Tag ${tag} removed.`);
      }
    : undefined;
  const [tag, setTag] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const add = useAction(async () => {
    const value = tag.trim();
    const invalid = check(limits, value);
    setProblem(invalid);
    if (invalid || !onAdd) return;
    await onAdd(value);
    setTag('');
  });
  const remove = useAction(async (value: string) => onRemove?.(value));
  return (
    <div class="tag-editor">
      {tags.length === 0 ? (
        <p class="hint">No tags.</p>
      ) : (
        <ul class="tags" aria-label={label}>
          {tags.map((t) => (
            <li key={t} class="tag">
              {t}
              {onRemove && (
                <button type="button" aria-label={`Remove tag ${t}`} disabled={remove.busy} onClick={() => void remove.run(t)}>
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {onAdd && (
        <form
          class="actions"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void add.run();
          }}
        >
          <label class="field inline">
            <span>Add a tag</span>
            <input value={tag} {...inputLimits(limits)} onInput={(e) => setTag(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={add.busy || !tag.trim()}>
            Add tag
          </button>
        </form>
      )}
      <ErrorMessage error={problem ?? add.error ?? remove.error} />
    </div>
  );
}
