/**
 * When to ask again. The service says it on every update-check answer (`Poll-After`, seconds,
 * already spread by the service per device), and on 429 and 503 with `Retry-After`; without
 * either the device waits its configured interval, spread by its own jitter.
 */

/** The answer header naming the seconds until the next check (docs/api.md "The update check"). */
export const POLL_HEADER = 'poll-after';

export interface PollingSettings {
  /** The interval used when the service names none, seconds. */
  readonly intervalSeconds: number;
  /** Spread of that fallback interval, 0..1: the wait is interval × (1 ± jitter). */
  readonly jitter: number;
  /** Longest wait honoured from any header, seconds (a bad or hostile value cannot park the device forever). */
  readonly maxSeconds?: number;
  readonly random?: () => number;
}

const DEFAULT_MAX_SECONDS = 7 * 24 * 3600;

/** Seconds from a delay header: a non-negative integer, or (Retry-After only) an HTTP date. */
export function delaySecondsOf(value: string | null, now: Date = new Date()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[A-Za-z]/.test(text)) return null;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}

/** The configured interval spread by ±jitter. */
export function jitteredSeconds(settings: PollingSettings): number {
  const random = settings.random ?? Math.random;
  const jitter = Math.min(1, Math.max(0, settings.jitter));
  return Math.max(1, Math.round(settings.intervalSeconds * (1 + jitter * (2 * random() - 1))));
}

/** Seconds until the next check after an answer with these status and headers. */
export function nextPollSeconds(status: number, headers: Headers, settings: PollingSettings): number {
  const max = settings.maxSeconds ?? DEFAULT_MAX_SECONDS;
  const named = status === 429 || status === 503 ? delaySecondsOf(headers.get('retry-after')) : null;
  const seconds = named ?? delaySecondsOf(headers.get(POLL_HEADER)) ?? null;
  if (seconds !== null) return Math.min(max, Math.max(1, seconds));
  return Math.min(max, jitteredSeconds(settings));
}

/** Exponential back-off with full jitter for network failures and 5xx without Retry-After: attempt 1, 2, ... */
export function backoffSeconds(attempt: number, settings: { baseSeconds: number; maxSeconds: number; random?: () => number }): number {
  const ceiling = Math.min(settings.maxSeconds, settings.baseSeconds * 2 ** Math.max(0, attempt - 1));
  return Math.max(1, Math.round(ceiling * (settings.random ?? Math.random)()));
}
