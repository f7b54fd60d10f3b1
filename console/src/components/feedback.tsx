import type { ComponentChildren } from 'preact';
import { describe } from '../api/problem';

/** The service's message for a failed request (or nothing). Announced to screen readers. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  return (
    <p class="error" role="alert">
      {describe(error)}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** What an empty list means and what to do next. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/** Progress of long work (an upload, an import), as a bar and as text. */
export function Progress({ label, loaded, total }: { label: string; loaded: number; total: number }) {
  const percent = total > 0 ? Math.min(100, Math.round((loaded / total) * 100)) : null;
  return (
    <div class="progress">
      <label>
        {label}: {percent === null ? 'sending…' : `${percent}%`}
        <progress max={100} value={percent ?? undefined} aria-label={label} />
      </label>
    </div>
  );
}
