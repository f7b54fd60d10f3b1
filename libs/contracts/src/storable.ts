/**
 * What the service can store, written once for every entry point (docs/api.md "Limits and
 * errors"): text without U+0000 (PostgreSQL's text types refuse it) and without a UTF-16
 * surrogate that lacks its pair (not Unicode, so not UTF-8 either); instants from the first
 * to the last moment of a four-digit year, in UTC (PostgreSQL has no year 0000, and an ISO
 * string past 9999 gains a sign).
 */

export const STORABLE_TEXT_RULE = 'must not contain U+0000 or unpaired surrogates';

export const EARLIEST_INSTANT = '0001-01-01T00:00:00.000Z';
export const LATEST_INSTANT = '9999-12-31T23:59:59.999Z';
export const INSTANT_RANGE_RULE = `must lie between ${EARLIEST_INSTANT} and ${LATEST_INSTANT}`;

const EARLIEST_MS = Date.parse(EARLIEST_INSTANT);
const LATEST_MS = Date.parse(LATEST_INSTANT);

export function isStorableText(text: string): boolean {
  return !text.includes('\0') && text.isWellFormed();
}

/** A time (ms since the epoch, NaN for none) within the storable range. */
export function isStorableInstant(ms: number): boolean {
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
}

/**
 * Where `value` (a decoded JSON value, query or path parameters) holds text that cannot be
 * stored: the dotted path of the first such string or property name ('' for the value itself),
 * or undefined when there is none.
 */
export function unstorableTextAt(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableChildAt(value[i], path, i);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (!isStorableText(key)) return join(path, JSON.stringify(key));
    const found = unstorableChildAt((value as Record<string, unknown>)[key], path, key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * unstorableTextAt of one item of an array or object, its dotted path built only for a nested
 * value or a finding: every request's parameters pass here (the update check's included), and
 * most are flat objects of fine strings.
 */
function unstorableChildAt(item: unknown, path: string, key: string | number): string | undefined {
  if (typeof item === 'string') return isStorableText(item) ? undefined : join(path, String(key));
  if (item === null || typeof item !== 'object') return undefined;
  return unstorableTextAt(item, join(path, String(key)));
}

/**
 * The same text made storable, for values the service records whatever they are (a request's
 * user agent and path, audit details): U+0000 and unpaired surrogates become `\u` escapes.
 */
export function storableText(text: string): string {
  if (isStorableText(text)) return text;

  return text.replace(
    /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/**
 * A value the service records whatever it holds (a request-log field, an audit or security
 * event's text) as storable text of at most `maxChars` UTF-16 units: escaped (storableText),
 * then cut, never between the halves of a surrogate pair. null and undefined become ''.
 */
export function recordedText(value: unknown, maxChars: number): string {
  if (value === null || value === undefined) return '';
  const text = storableText(typeof value === 'string' ? value : String(value));
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** A JSON value with every string and property name made storable (for jsonb, which refuses `\u0000` and lone surrogates too). */
export function recordedJson(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(recordedJson);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), recordedJson(item)]));
}
