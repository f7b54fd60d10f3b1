import { useState } from 'preact/hooks';
import type { Paths } from '../api/client';
import { Link, useLocation, useQueryState } from '../app/router';
import { FilterForm } from './filters';
import { check, type FieldLimits, Field, inputLimits } from './form';
import { when } from './format';
import { Table } from './table';
import './audit-log.css';

/** An audit entry as both lists answer it (GET /admin/audit, GET /audit). */
export type AuditEntry = Paths['/audit']['get']['responses'][200]['content']['application/json']['items'][number];

/** How the service shows an administrator to a customer's members (GET /audit). */
const SERVICE_ADMINISTRATOR = 'service administrator';

/** The filters of both lists, in the order the form shows them; `domain` is the administrators' only. */
const FILTERS = {
  domain: { label: 'Customer domain', hint: "Empty: every customer and the service's own changes" },
  action: { label: 'Action', hint: 'e.g. member.update' },
  actor: { label: 'Who', hint: 'As listed: user:<id>, token:<id>, admin:user:<id>' },
  /** GET /audit: administrators are one actor there. */
  customerActor: { label: 'Who', hint: 'As listed: user:<id>, token:<id> or service administrator' },
  target_type: { label: 'Target type', hint: 'e.g. device' },
  target_id: { label: 'Target', hint: 'e.g. a HW id' },
  from: { label: 'From', hint: 'A day or an RFC 3339 time' },
  to: { label: 'To', hint: 'A day (to its end) or an RFC 3339 time' },
} as const;
export type AuditFilter = Exclude<keyof typeof FILTERS, 'customerActor'>;
const PAGE_SIZES = ['50', '100', '500'] as const;
const DEFAULT_PAGE_SIZE = '50';

/** The list's filters and page as kept in the page's address: what the API is asked. */
export function useAuditQuery(names: readonly AuditFilter[]) {
  const [query] = useQueryState();
  const limit = PAGE_SIZES.find((size) => size === query.get('limit')) ?? DEFAULT_PAGE_SIZE;
  const offset = Math.max(0, Math.trunc(Number(query.get('offset') ?? '0')) || 0);
  const filters = Object.fromEntries(names.map((name) => [name, query.get(name) || undefined])) as Partial<Record<AuditFilter, string>>;
  return { filters, limit: Number(limit), offset, key: query.toString(), filtered: names.some((name) => query.get(name)) };
}

/** The filter form: each field checked against the API's limits before the address changes. */
export function AuditFilterForm({ names, limits }: { names: readonly AuditFilter[]; limits: Partial<Record<AuditFilter, FieldLimits>> }) {
  const forCustomer = !names.includes('domain');
  const [query, setQuery] = useQueryState();
  const [texts, setTexts] = useState(() => Object.fromEntries(names.map((name) => [name, query.get(name) ?? ''])) as Record<AuditFilter, string>);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <FilterForm
      label="Filter the audit log"
      problem={problem}
      onApply={() => {
        const invalid = names.map((name) => (texts[name].trim() ? check(limits[name], texts[name].trim()) : null)).find((p) => p) ?? null;
        setProblem(invalid);
        if (!invalid) setQuery({ ...Object.fromEntries(names.map((name) => [name, texts[name].trim() || null])), offset: null });
      }}
      onClear={() => {
        setTexts(Object.fromEntries(names.map((name) => [name, ''])) as Record<AuditFilter, string>);
        setProblem(null);
        setQuery({ ...Object.fromEntries(names.map((name) => [name, null])), offset: null });
      }}
    >
      {names.map((name) => (
        <Field key={name} label={FILTERS[name].label} hint={(forCustomer && name === 'actor' ? FILTERS.customerActor : FILTERS[name]).hint}>
          <input name={name} value={texts[name]} {...inputLimits(limits[name])} onInput={(e) => setTexts({ ...texts, [name]: e.currentTarget.value })} />
        </Field>
      ))}
      <Field label="Per page">
        <select name="limit" value={query.get('limit') ?? DEFAULT_PAGE_SIZE} onChange={(e) => setQuery({ limit: e.currentTarget.value, offset: null })}>
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </Field>
    </FilterForm>
  );
}

/**
 * The entries, newest first, laid out to fit a 1280 px screen: who acted by email where known,
 * the action with its target, and the change as the fields that differ (the whole before and
 * after folded beneath, wrapped).
 */
export function AuditEntries({ entries, showCustomer }: { entries: readonly AuditEntry[]; showCustomer: boolean }) {
  const columns = ['When', ...(showCustomer ? ['Customer'] : []), 'Who', 'What', 'Change'];
  return (
    <Table label="Audit entries" id="audit" wrapClass="audit-table" columns={columns}>
      {entries.map((entry, index) => (
        <tr key={`${entry.ts} ${index}`}>
          <td class="audit-when">
            <time dateTime={entry.ts} title={entry.ts}>
              {when(entry.ts)}
            </time>
          </td>
          {showCustomer && <td class="audit-wrap">{entry.domain ?? <span class="hint">service</span>}</td>}
          <td class="audit-wrap">
            <Actor entry={entry} />
          </td>
          <td class="audit-wrap">
            <FilterLink name="action" value={entry.action} class="mono audit-action" />
            <div>
              <span class="hint">{entry.target_type}</span> <FilterLink name="target_id" value={entry.target_id} class="mono" />
            </div>
          </td>
          <td class="audit-change">
            <Change before={entry.before} after={entry.after} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** A value of a column that, clicked, lists only the entries with it (the other filters kept). */
function FilterLink({ name, value, class: className }: { name: AuditFilter; value: string; class?: string }) {
  const location = useLocation();
  const next = new URLSearchParams(location.search);
  next.set(name, value);
  next.delete('offset');
  return (
    <Link href={`${location.path}?${next.toString()}`} class={className}>
      {value}
    </Link>
  );
}

/** The person by email where the service knows it (their id beneath); administrators marked as such. */
function Actor({ entry }: { entry: AuditEntry }) {
  if (entry.actor === SERVICE_ADMINISTRATOR) return <FilterLink name="actor" value={entry.actor} />;
  const administrator = entry.actor.startsWith('admin:');
  return (
    <>
      {entry.actor_email ? <div>{entry.actor_email}</div> : null}
      <div class={entry.actor_email ? 'hint' : undefined}>
        <FilterLink name="actor" value={entry.actor} class="mono" />
      </div>
      {administrator && <span class="badge badge-info">administrator</span>}
    </>
  );
}

const SHOWN_FIELDS = 4;
const SHOWN_CHARACTERS = 60;

/** The fields that differ between before and after (`field: old → new`), and both states folded. */
function Change({ before, after }: { before: Record<string, unknown>; after: Record<string, unknown> }) {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
  if (keys.length === 0) return <span class="hint">no recorded change</span>;
  const created = Object.keys(before).length === 0;
  const removed = Object.keys(after).length === 0;
  return (
    <>
      <ul class="audit-fields">
        {keys.slice(0, SHOWN_FIELDS).map((key) => (
          <li key={key}>
            <span class="mono">{key}</span>:{' '}
            {created ? (
              short(after[key])
            ) : removed ? (
              <del>{short(before[key])}</del>
            ) : (
              <>
                {short(before[key])} → {short(after[key])}
              </>
            )}
          </li>
        ))}
        {keys.length > SHOWN_FIELDS && <li class="hint">and {keys.length - SHOWN_FIELDS} more</li>}
      </ul>
      <details class="json">
        <summary>Before and after</summary>
        <div class="hint">Before</div>
        <pre>{JSON.stringify(before, null, 2)}</pre>
        <div class="hint">After</div>
        <pre>{JSON.stringify(after, null, 2)}</pre>
      </details>
    </>
  );
}

function short(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > SHOWN_CHARACTERS ? `${text.slice(0, SHOWN_CHARACTERS - 1)}…` : text;
}
