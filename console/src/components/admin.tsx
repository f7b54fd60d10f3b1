import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useMe } from '../app/identity';
import { ErrorMessage } from './feedback';
import { check, type FieldLimits, Field, inputLimits } from './form';
import { Table } from './table';
import './admin.css';

/** Full administrators act; read-only administrators (viewers of the operator customer) only see. */
export function useFullAdmin(): boolean {
  return useMe().identity.admin === 'full';
}

/** Said once on each administrator page a read-only administrator opens. */
export function ReadOnlyNote() {
  if (useFullAdmin()) return null;
  return <p class="hint read-only-note">You are a read-only administrator: you see everything here, but only full administrators can change it.</p>;
}

/** A JSON object (audit before/after, an event's detail, a job's payload), folded. */
export function JsonDetails({ summary, value }: { summary: string; value: unknown }) {
  const text = JSON.stringify(value, null, 2);
  if (text === '{}' || text === undefined) return <span class="hint">{'{}'}</span>;
  return (
    <details class="json">
      <summary>{summary}</summary>
      <pre>{text}</pre>
    </details>
  );
}

export interface Bar {
  readonly label: string;
  readonly value: number;
}

/** Horizontal bars with their numbers as text (the numbers are what a screen reader reads). */
export function BarChart({ title, bars, empty }: { title: string; bars: readonly Bar[]; empty: ComponentChildren }) {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  return (
    <figure class="bar-chart">
      <figcaption>{title}</figcaption>
      {bars.length === 0 ? (
        <p class="hint">{empty}</p>
      ) : (
        <ul class="chart">
          {bars.map((bar) => (
            <li key={bar.label}>
              <span class="label">{bar.label}</span>
              <span class="bar" aria-hidden="true" style={{ width: `${(bar.value / max) * 100}%` }} />
              <span class="value">{bar.value.toLocaleString()}</span>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}

/** A status word styled by its meaning (active, suspended, failed…). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}

/** An integer from a form's text, or undefined when empty (the API's check then says what is wrong). */
export function intOrUndefined(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text.trim());
}

/** A column heading: its text, right-aligned for numbers, or only for screen readers (a column of buttons). */
export type Column = string | { readonly text: string; readonly num?: boolean; readonly quiet?: boolean };

/**
 * The shared Table as the administrator pages use it: a table that may scroll sideways (narrow
 * screens) in a named region reachable by keyboard. `children` are its rows.
 */
export function ScrollingTable({
  label,
  id,
  columns,
  caption,
  children,
}: {
  label: string;
  id?: string;
  columns: readonly Column[];
  caption?: string;
  children: ComponentChildren;
}) {
  const headings = columns.map((column) => (typeof column === 'string' ? column : { label: column.text, num: column.num, hidden: column.quiet }));
  return (
    <Table label={label} id={id} wrapClass="admin-table" columns={headings} caption={caption && <span class="hint">{caption}</span>}>
      {children}
    </Table>
  );
}

/** A list filter chosen from a few values ('' is every value), applied at once. */
export function ChoiceFilter({
  label,
  name,
  value,
  any,
  choices,
  onChange,
}: {
  label: string;
  name: string;
  value: string;
  any: string;
  choices: readonly string[];
  onChange: (value: string | null) => void;
}) {
  return (
    <Field label={label}>
      <select name={name} value={value} onChange={(e) => onChange(e.currentTarget.value || null)}>
        <option value="">{any}</option>
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * A form in a panel: its fields in a grid, one submit button, and the error to show (a
 * problem found before sending, or the service's answer). Enter submits it like a click.
 */
export function PanelForm({
  title,
  intro,
  danger,
  submit,
  disabled,
  onSubmit,
  error,
  after,
  extra,
  children,
}: {
  title?: string;
  intro?: ComponentChildren;
  danger?: boolean;
  submit: string;
  disabled?: boolean;
  onSubmit: () => void;
  error: unknown;
  /** Below the grid, above the button (a long field, a hint). */
  after?: ComponentChildren;
  /** More buttons beside the submit button. */
  extra?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <form
      class={danger ? 'panel danger-zone' : 'panel'}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {title && <h2>{title}</h2>}
      {intro}
      <div class="form-grid">{children}</div>
      {after}
      <div class="actions">
        <button type="submit" class={danger ? 'danger' : 'primary'} disabled={disabled}>
          {submit}
        </button>
        {extra}
      </div>
      <ErrorMessage error={error} />
    </form>
  );
}

/** A list's filters: applied when `validate` finds no problem (the API's own message otherwise). */
export function FilterForm({
  validate,
  apply,
  extra,
  children,
}: {
  validate: () => string | null;
  apply: () => void;
  extra?: ComponentChildren;
  children: ComponentChildren;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <PanelForm
      submit="Show"
      error={problem}
      extra={extra}
      onSubmit={() => {
        const invalid = validate();
        setProblem(invalid);
        if (!invalid) apply();
      }}
    >
      {children}
    </PanelForm>
  );
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
