import { recordedText, type RequestLogEntry } from '@app/contracts';

/** A request-log entry ready for the table: every column present, types and lengths safe (see toRequestLogRow). */
export type RequestLogRow = RequestLogEntry;

const MAX = { refusal: 64, domain: 253, actor: 256, method: 16, route: 512, path: 4096, ip: 64, user_agent: 1024, request_id: 128 } as const;
const INT32_MAX = 2_147_483_647;

/**
 * Entries come from the gateways (trusted, but a single bad value must not make PostgreSQL
 * refuse the whole batch): text is stored escaped where PostgreSQL cannot hold a character, long strings cut,
 * numbers made non-negative integers. An entry without a usable timestamp is dropped (null).
 */
export function toRequestLogRow(entry: RequestLogEntry): RequestLogRow | null {
  if (!entry || typeof entry !== 'object') return null;
  const ts = timestamp(entry.ts);
  if (ts === null) return null;
  return {
    ts,
    domain: nullableText(entry.domain, MAX.domain),
    actor: nullableText(entry.actor, MAX.actor),
    method: text(entry.method, MAX.method),
    route: text(entry.route, MAX.route),
    path: text(entry.path, MAX.path),
    status: count(entry.status, 999),
    ip: text(entry.ip, MAX.ip),
    user_agent: text(entry.user_agent, MAX.user_agent),
    bytes_in: count(entry.bytes_in, Number.MAX_SAFE_INTEGER),
    bytes_out: count(entry.bytes_out, Number.MAX_SAFE_INTEGER),
    duration_ms: count(entry.duration_ms, INT32_MAX),
    request_id: text(entry.request_id, MAX.request_id),
    refusal: nullableText(entry.refusal, MAX.refusal),
  };
}

/** What gateways send (Date#toISOString) passes as it is; anything else is parsed, or refused (null). */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The time of day of ISO_UTC, each field in its range (the date is checked by Date.parse). */
const TIME_OF_DAY = /^T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
/** The last timestamp that passed, and its day: a batch holds runs of equal ones, and of the same day. */
let lastAccepted = '';
let lastDay = '\0';
function timestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (value === lastAccepted) return value;
  // the day of the last one that passed and a valid time of day: the date needs no parsing again
  if (value.length === 24 && value.startsWith(lastDay) && TIME_OF_DAY.test(value.slice(10))) return (lastAccepted = value);
  if (ISO_UTC.test(value) && !Number.isNaN(Date.parse(value))) {
    lastDay = value.slice(0, 10);
    return (lastAccepted = value);
  }
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed.toISOString();
}

const text = recordedText;

function nullableText(value: unknown, max: number): string | null {
  return value === null || value === undefined || value === '' ? null : text(value, max);
}

function count(value: unknown, max: number): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < 0) return 0;
  return Math.min(Math.round(n), max);
}
