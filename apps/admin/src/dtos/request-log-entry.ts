import type { RequestLogEntry } from '@app/contracts';

/** A request-log entry ready for the table: every column present, types and lengths safe (see toRequestLogRow). */
export type RequestLogRow = RequestLogEntry;

const MAX = { domain: 253, actor: 256, method: 16, route: 512, path: 4096, ip: 64, user_agent: 1024, request_id: 128 } as const;
const INT32_MAX = 2_147_483_647;

/**
 * Entries come from the gateways (trusted, but a single bad value must not make PostgreSQL
 * refuse the whole batch): NUL characters are removed (text cannot hold them), long strings cut,
 * numbers made non-negative integers. An entry without a usable timestamp is dropped (null).
 */
export function toRequestLogRow(entry: RequestLogEntry): RequestLogRow | null {
  if (!entry || typeof entry !== 'object') return null;
  const ts = typeof entry.ts === 'string' ? new Date(entry.ts) : new Date(NaN);
  if (Number.isNaN(ts.getTime())) return null;
  return {
    ts: ts.toISOString(),
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
  };
}

function text(value: unknown, max: number): string {
  if (value === null || value === undefined) return '';
  return String(value).replaceAll('\u0000', '').slice(0, max);
}

function nullableText(value: unknown, max: number): string | null {
  return value === null || value === undefined || value === '' ? null : text(value, max);
}

function count(value: unknown, max: number): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < 0) return 0;
  return Math.min(Math.round(n), max);
}
