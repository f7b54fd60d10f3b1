/** Dates as the person's locale shows them (ISO in the title attribute where exactness matters). */
export function when(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

/**
 * A build date: a day without a time of day (`2026-11-20`, stored as midnight UTC) is that day
 * wherever the person is, so it is shown without conversion to their time zone (converted, it
 * would show the day before west of UTC); a value with a time of day is shown as `when` does.
 */
export function day(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(date.getTime())) return value;
  if (date.getUTCHours() || date.getUTCMinutes() || date.getUTCSeconds() || date.getUTCMilliseconds()) return date.toLocaleString();
  return date.toLocaleDateString(undefined, { timeZone: 'UTC' });
}

export function bytes(value: number): string {
  if (value < 1024) return `${value} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let n = value / 1024;
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024;
    unit++;
  }
  return `${n.toFixed(n < 10 ? 1 : 0)} ${units[unit]}`;
}

/** `seconds` as people read it: "1 h 30 min", "2 d", "45 s". */
export function duration(seconds: number): string {
  const parts: string[] = [];
  let left = seconds;
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    if (left >= size) {
      parts.push(`${Math.floor(left / size)} ${unit}`);
      left %= size;
    }
  }
  return parts.join(' ') || '0 s';
}
