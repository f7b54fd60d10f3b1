import type { ComponentChildren } from 'preact';
import { useQueryState } from '../app/router';
import { ErrorMessage } from './feedback';
import { check, type FieldLimits, Field, inputLimits } from './form';

/** A choice kept in the page's address (`name=` in the query); the first option is the default. */
export function QuerySelect({ label, name, options }: { label: string; name: string; options: readonly (readonly [value: string, text: string])[] }) {
  const [query, setQuery] = useQueryState();
  return (
    <Field label={label}>
      <select
        name={name}
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

/** A select's options for a value the API lists (limits.gen.ts's `oneOf`), after the "any" choice (''). */
export function anyOf(values: readonly string[], any = 'any'): readonly (readonly [value: string, text: string])[] {
  return [['', any], ...values.map((value) => [value, value] as const)];
}

/**
 * A list's filter form, the one every list page uses (customers' and administrators'): its
 * fields, Apply (submit) and Clear, more buttons (`extra`), and the first field's problem.
 */
export function FilterForm({
  label,
  onApply,
  onClear,
  problem,
  extra,
  children,
}: {
  label: string;
  onApply: () => void;
  onClear?: () => void;
  problem: string | null;
  /** More buttons beside Apply and Clear (e.g. Refresh). */
  extra?: ComponentChildren;
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
        {extra}
      </div>
      <ErrorMessage error={problem} />
    </form>
  );
}

/** An integer from a form's text, or undefined when empty (the API's check then says what is wrong). */
export function intOrUndefined(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text.trim());
}

/** How many entries a list shows: typed as text, checked against the API's limits on submit. */
export function LimitField({
  name,
  value,
  onInput,
  limits,
  label = 'How many',
}: {
  name: string;
  value: string;
  onInput: (value: string) => void;
  limits: FieldLimits;
  label?: string;
}) {
  return (
    <Field label={label} hint={`${limits.minimum} to ${limits.maximum}`}>
      <input name={name} type="number" value={value} {...inputLimits(limits)} onInput={(e) => onInput(e.currentTarget.value)} />
    </Field>
  );
}

/** The API's message when a typed limit is out of its range, else null. */
export function limitProblem(limits: FieldLimits, text: string, fallback: string): string | null {
  return check(limits, intOrUndefined(text) ?? Number(fallback));
}

/** A typed limit as a query parameter of the page's address (none when it is the default). */
export function limitParam(text: string, fallback: string): string | null {
  return text.trim() === fallback ? null : text.trim() || null;
}
