import { useMe } from '../app/identity';
import './admin.css';

// What only the administrator pages need; their tables, filters, charts and forms are the
// console's shared ones (table.tsx, filters.tsx, bar-chart.tsx, pager.tsx, form.tsx).

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

/** A status word styled by its meaning (active, suspended, failed…). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}
