import type { ComponentChildren } from 'preact';
import { useQueryState } from '../app/router';
import { ErrorMessage } from './feedback';
import { Field } from './form';

/** A choice kept in the page's address (`name=` in the query); the first option is the default. */
export function QuerySelect({ label, name, options }: { label: string; name: string; options: readonly (readonly [value: string, text: string])[] }) {
  const [query, setQuery] = useQueryState();
  return (
    <Field label={label}>
      <select
        value={query.get(name) ?? options[0][0]}
        onChange={(e) => setQuery({ [name]: e.currentTarget.value === options[0][0] ? null : e.currentTarget.value, offset: null })}
      >
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  );
}

export const STATUS_OPTIONS = [
  ['', 'any'],
  ['active', 'active'],
  ['withdrawn', 'withdrawn'],
] as const;

/** A list's filter form: its fields, Apply (submit) and Clear, and the first field's problem. */
export function FilterForm({
  label,
  onApply,
  onClear,
  problem,
  children,
}: {
  label: string;
  onApply: () => void;
  onClear?: () => void;
  problem: string | null;
  children: ComponentChildren;
}) {
  return (
    <form
      class="panel"
      aria-label={label}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onApply();
      }}
    >
      <div class="form-grid">{children}</div>
      <div class="actions">
        <button type="submit" class="primary">
          Apply filters
        </button>
        {onClear && (
          <button type="button" onClick={onClear}>
            Clear
          </button>
        )}
      </div>
      <ErrorMessage error={problem} />
    </form>
  );
}
