import type { ComponentChildren } from 'preact';

/** A column heading: its text, `num` for right-aligned numbers, `hidden` for an action column (named for screen readers only). */
export type Column = string | { readonly label: string; readonly num?: boolean; readonly hidden?: boolean };

/**
 * The console's one table (customers' and administrators' pages): a scrollable table whose
 * headings are configured by `columns`; the rows are the children (`<tr>`s, one `<td>` per
 * column). With a `label` the scrolling wrapper is a named region reachable by keyboard, so a
 * table wider than the screen can be scrolled without a mouse. `wrapClass="admin-table"` keeps
 * short machine words (kinds, addresses) whole on the administrator pages.
 */
export function Table({
  columns,
  caption,
  label,
  id,
  wrapClass,
  children,
}: {
  columns: readonly Column[];
  caption?: ComponentChildren;
  label?: string;
  id?: string;
  wrapClass?: string;
  children: ComponentChildren;
}) {
  return (
    <div
      class={wrapClass ? `table-wrap ${wrapClass}` : 'table-wrap'}
      tabIndex={label === undefined ? undefined : 0}
      role={label === undefined ? undefined : 'region'}
      aria-label={label}
    >
      <table id={id}>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => {
              const { label, num, hidden } = typeof column === 'string' ? { label: column } : column;
              return (
                <th key={label} scope="col" class={num ? 'num' : undefined}>
                  {hidden ? <span class="hint">{label}</span> : label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
