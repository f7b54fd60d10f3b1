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
