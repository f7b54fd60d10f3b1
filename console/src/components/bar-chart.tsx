import type { ComponentChildren } from 'preact';
import { Link } from '../app/router';

/**
 * A horizontal bar chart that reads as a list: each row has its label, its value as text and a
 * bar (hidden from screen readers, which read the text). Bars are sized through the style
 * object (CSSOM), which the Content-Security-Policy allows, not a style attribute.
 */
export function BarChart({
  title,
  rows,
  unit,
  empty = 'Nothing to show.',
}: {
  title: string;
  /** `href`: the list behind the row (its label links there). */
  rows: readonly { label: string; value: number; href?: string }[];
  unit?: string;
  /** What an empty chart says instead. */
  empty?: ComponentChildren;
}) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  return (
    <figure class="chart-figure">
      <figcaption>{title}</figcaption>
      {rows.length === 0 ? (
        <p class="hint">{empty}</p>
      ) : (
        <ul class="chart" aria-label={title}>
          {rows.map((row) => (
            <li key={row.label}>
              <span class="label">{row.href ? <Link href={row.href}>{row.label}</Link> : row.label}</span>
              <span class="bar-track" aria-hidden="true">
                <span class="bar" style={{ width: `${(row.value / max) * 100}%` }} />
              </span>
              <span class="value">
                {row.value.toLocaleString()}
                {unit ? ` ${unit}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}

/**
 * Values by day as columns (an SVG, sized by attributes: nothing the Content-Security-Policy
 * forbids), with the total and the busiest day as text; each column names its day and value
 * (title), and the numbers are one click away as a list.
 */
export function DayChart({ title, days }: { title: string; days: readonly { day: string; value: number }[] }) {
  const max = Math.max(1, ...days.map((d) => d.value));
  const total = days.reduce((sum, d) => sum + d.value, 0);
  const busiest = days.reduce<{ day: string; value: number } | null>((best, d) => (!best || d.value > best.value ? d : best), null);
  const width = Math.max(1, days.length) * 10;
  return (
    <figure class="chart-figure">
      <figcaption>
        {title}: {total.toLocaleString()} in all
        {busiest && busiest.value > 0 ? `, most on ${busiest.day} (${busiest.value.toLocaleString()})` : ''}
      </figcaption>
      <svg class="day-chart" viewBox={`0 0 ${width} 100`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
        {days.map((d, i) => {
          const height = (d.value / max) * 96;
          return (
            <rect key={d.day} x={i * 10 + 1} y={100 - height} width={8} height={Math.max(height, d.value > 0 ? 1 : 0)} class="day-bar">
              <title>
                {d.day}: {d.value}
              </title>
            </rect>
          );
        })}
      </svg>
      <div class="day-axis" aria-hidden="true">
        <span>{days[0]?.day}</span>
        <span>{days[days.length - 1]?.day}</span>
      </div>
      <details>
        <summary>Numbers by day</summary>
        <ul class="chart" aria-label={title}>
          {days.map((d) => (
            <li key={d.day}>
              <span class="label">{d.day}</span>
              <span class="value">{d.value.toLocaleString()}</span>
            </li>
          ))}
        </ul>
      </details>
    </figure>
  );
}

/** A stacked chart's colour for a series: the palette's meaning, not a hue per series. */
export type SeriesTone = 'muted' | 'ok' | 'warn' | 'alert' | 'other' | 'danger';

/**
 * Horizontal bars split into segments (a stage's devices by outcome): each row has its label,
 * its total and, as text under the bar, the non-zero values by series, so the numbers do not
 * depend on telling colours apart; the bars and the legend's swatches are decoration hidden
 * from screen readers. Bars are sized by the largest row total, through the style object
 * (CSSOM) as BarChart's are.
 */
export function StackedBarChart({
  title,
  series,
  rows,
  empty = 'Nothing to show.',
}: {
  title: string;
  /** The segments in order: `key` into each row's values, the legend's label, the colour. */
  series: readonly { key: string; label: string; tone: SeriesTone }[];
  /** `href`: the list behind the row (its label links there). */
  rows: readonly { label: string; values: Readonly<Record<string, number>>; href?: string }[];
  empty?: ComponentChildren;
}) {
  const totals = rows.map((row) => series.reduce((sum, s) => sum + (row.values[s.key] ?? 0), 0));
  const max = Math.max(1, ...totals);
  return (
    <figure class="chart-figure">
      <figcaption>{title}</figcaption>
      {rows.length === 0 ? (
        <p class="hint">{empty}</p>
      ) : (
        <>
          <ul class="chart-legend" aria-hidden="true">
            {series.map((s) => (
              <li key={s.key}>
                <span class={`swatch tone-${s.tone}`} />
                {s.label}
              </li>
            ))}
          </ul>
          <ul class="chart stacked" aria-label={title}>
            {rows.map((row, i) => (
              <li key={row.label}>
                <span class="label">{row.href ? <Link href={row.href}>{row.label}</Link> : row.label}</span>
                <span class="bar-track" aria-hidden="true">
                  {series.map((s) =>
                    (row.values[s.key] ?? 0) > 0 ? (
                      <span key={s.key} class={`bar tone-${s.tone}`} style={{ width: `${((row.values[s.key] ?? 0) / max) * 100}%` }} />
                    ) : null,
                  )}
                </span>
                <span class="value">{totals[i].toLocaleString()}</span>
                <span class="breakdown">
                  {series
                    .filter((s) => (row.values[s.key] ?? 0) > 0)
                    .map((s) => `${s.label} ${(row.values[s.key] ?? 0).toLocaleString()}`)
                    .join(' · ') || 'none yet'}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </figure>
  );
}
