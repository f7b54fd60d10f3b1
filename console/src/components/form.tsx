import { cloneElement, type ComponentChildren, type VNode } from 'preact';
import { useId } from 'preact/hooks';
import { ErrorMessage } from './feedback';

/** What the API checks on one field (console/src/api/limits.gen.ts, generated from the OpenAPI document). */
export interface FieldLimits {
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  /** The number must be above this (a stage's percent: over 0). */
  readonly exclusiveMinimum?: number;
  readonly maximum?: number;
  /** The number need not be an integer (a percent). */
  readonly decimal?: boolean;
  readonly maxItems?: number;
  readonly message?: string;
  readonly items?: FieldLimits;
  /** An object's fields (a rollout's stage, a halt rule). */
  readonly properties?: Readonly<Record<string, FieldLimits>>;
  readonly oneOf?: readonly (string | number | boolean)[];
}

/** The API's own message when `value` breaks the field's limits, else null (checked before sending). */
export function check(limits: FieldLimits | undefined, value: string | number | readonly string[]): string | null {
  if (!limits) return null;
  const fail = (what: string) => limits.message ?? what;
  if (Array.isArray(value)) {
    if (limits.maxItems !== undefined && value.length > limits.maxItems) return fail(`at most ${limits.maxItems} values`);
    for (const item of value) {
      const problem = check(limits.items, item as string);
      if (problem) return `${item}: ${problem}`;
    }
    return null;
  }
  if (typeof value === 'number') {
    if (
      !Number.isFinite(value) ||
      (!limits.decimal && !Number.isInteger(value)) ||
      (limits.minimum !== undefined && value < limits.minimum) ||
      (limits.exclusiveMinimum !== undefined && value <= limits.exclusiveMinimum) ||
      (limits.maximum !== undefined && value > limits.maximum)
    ) {
      return fail(`must be from ${limits.minimum ?? limits.exclusiveMinimum} to ${limits.maximum}`);
    }
    return null;
  }
  const text = value as string;
  if (limits.minLength !== undefined && text.length < limits.minLength) return fail(`at least ${limits.minLength} characters`);
  if (limits.maxLength !== undefined && text.length > limits.maxLength) return fail(`at most ${limits.maxLength} characters`);
  if (limits.pattern !== undefined && !new RegExp(limits.pattern).test(text)) return fail(`must match ${limits.pattern}`);
  return null;
}

/** The HTML attributes that state the same limits to the browser and to assistive technology. */
export function inputLimits(limits: FieldLimits | undefined): { minLength?: number; maxLength?: number; min?: number; max?: number; step?: 'any' } {
  return {
    minLength: limits?.minLength,
    maxLength: limits?.maxLength ?? patternMaxLength(limits?.pattern),
    min: limits?.minimum ?? limits?.exclusiveMinimum,
    max: limits?.maximum,
    ...(limits?.decimal ? { step: 'any' as const } : {}),
  };
}

/**
 * The longest text a length-bounding pattern allows (`^[!-~]{0,64}$`: 64; a tag's
 * `^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$`: 64), so a field whose limit the API states only as a
 * pattern still stops typing at it; undefined for any other pattern.
 */
function patternMaxLength(pattern: string | undefined): number | undefined {
  const match = pattern === undefined ? null : /^\^(\[[^\]]*\])?\[[^\]]*\]\{(?:\d+,)?(\d+)\}\$$/.exec(pattern);
  return match ? Number(match[2]) + (match[1] ? 1 : 0) : undefined;
}

/** A labelled control (label `for` its id) with an optional hint that describes it. */
export function Field({ label, hint, children, inline }: { label: string; hint?: ComponentChildren; children: VNode; inline?: boolean }) {
  const id = useId();
  const control = cloneElement(children, { id, ...(hint ? { 'aria-describedby': `${id}-hint` } : {}) });
  return (
    <div class={inline ? 'field inline' : 'field'}>
      {inline && control}
      <label for={id}>{label}</label>
      {!inline && control}
      {hint && (
        <span id={`${id}-hint`} class="hint">
          {hint}
        </span>
      )}
    </div>
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
