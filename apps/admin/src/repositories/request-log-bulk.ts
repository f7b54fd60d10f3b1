import { sqlLiteral } from '@app/infra';
import type { RequestLogRow } from '../dtos/request-log-entry.js';
import { BULK_ENTRY } from '../stats/usage-counters.js';

/**
 * The request log keeps most entries, the successful update checks of a fleet, in bulk: one row
 * of admin.request_log_bulk per stored batch and UTC day instead of a row per entry (docs/
 * operations.md "Request log"). Each such row holds:
 * - `lines`: the entries, one JSON array per line (LINE_FIELDS), ASCII only, sorted by customer
 *   (bytea, so that a part is read by its byte offsets without reading the rest);
 * - `domains` (distinct, sorted), `starts` (where each customer's lines begin in `lines`, 1-based,
 *   and one past the end) and `counts` (its entries): a customer's entries are read as one
 *   substring, and counted without reading them;
 * - `ips` (distinct): with `domains`, each in a GIN index, the batches that hold an address;
 *   `ip_counts`: the entries of each (the detectors' candidates, without reading the lines).
 * Every other entry (errors, refusals, API calls, entries of no customer) stays a row of
 * admin.request_log with its indexes.
 */

const BULK_ROUTES: ReadonlySet<string> = new Set(BULK_ENTRY.routes);
const BULK_STATUSES: ReadonlySet<number> = new Set(BULK_ENTRY.statuses);

/** An entry kept in bulk (BULK_ENTRY): an update check answered 200 or 304 for a named customer. */
export function isBulkEntry(row: RequestLogRow): boolean {
  return (
    BULK_STATUSES.has(row.status) && row.method === BULK_ENTRY.method && row.domain !== null && (row.refusal ?? null) === null && BULK_ROUTES.has(row.route)
  );
}

/** The fields of a bulk line, in order (a JSON array; `refusal` is always null in bulk). */
export const LINE_FIELDS = [
  'ts',
  'domain',
  'actor',
  'method',
  'route',
  'path',
  'status',
  'ip',
  'user_agent',
  'bytes_in',
  'bytes_out',
  'duration_ms',
  'request_id',
] as const;

type Line = [string, string, string | null, string, string, string, number, string, string, number, number, number, string];

const NON_ASCII = /[\u0080-\uffff]/g;
const escapedChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** An entry as its bulk line: JSON with every character beyond ASCII escaped, so an offset in the JavaScript string is the byte offset in `lines`. */
function lineOf(r: RequestLogRow): string {
  const line: Line = [r.ts, r.domain!, r.actor, r.method, r.route, r.path, r.status, r.ip, r.user_agent, r.bytes_in, r.bytes_out, r.duration_ms, r.request_id];
  const json = JSON.stringify(line);
  NON_ASCII.lastIndex = 0;
  return `${NON_ASCII.test(json) ? json.replace(NON_ASCII, escapedChar) : json}\n`;
}

/**
 * The INSERT statements that store a batch's bulk entries (`bulk`, all isBulkEntry): one row
 * per UTC day, so a row's entries count for one day and lie in one day partition.
 */
export function bulkInserts(bulk: readonly RequestLogRow[], batch: number): string[] {
  if (bulk.length === 0) return [];
  const byDay = new Map<string, RequestLogRow[]>();
  for (const row of bulk) {
    const day = row.ts.slice(0, 10);
    const rows = byDay.get(day);
    if (rows) rows.push(row);
    else byDay.set(day, [row]);
  }
  const inserts: string[] = [];
  for (const rows of byDay.values()) {
    // by customer, then as they came (a stable sort)
    rows.sort((a, b) => (a.domain! < b.domain! ? -1 : a.domain! > b.domain! ? 1 : 0));
    let lines = '';
    const domains: string[] = [];
    const starts: number[] = [];
    const counts: number[] = [];
    const ips = new Map<string, number>();
    let first = rows[0].ts;
    let last = first;
    for (const row of rows) {
      if (row.ts < first) first = row.ts;
      else if (row.ts > last) last = row.ts;
      if (domains[domains.length - 1] !== row.domain) {
        domains.push(row.domain!);
        starts.push(lines.length + 1);
        counts.push(0);
      }
      counts[counts.length - 1]++;
      ips.set(row.ip, (ips.get(row.ip) ?? 0) + 1);
      lines += lineOf(row);
    }
    starts.push(lines.length + 1);
    inserts.push(
      `INSERT INTO admin.request_log_bulk (batch, first_ts, last_ts, domains, starts, counts, ips, ip_counts, lines) VALUES (${batch}, ${sqlLiteral(first)}, ${sqlLiteral(last)}, ${sqlLiteral(domains)}, ${sqlLiteral(starts)}, ${sqlLiteral(counts)}, ${sqlLiteral([...ips.keys()])}, ${sqlLiteral([...ips.values()])}, convert_to(${sqlLiteral(lines)}, 'UTF8'))`,
    );
  }
  return inserts;
}

/** SQL: the `lines` of the bulk row `alias` as text. */
export function linesText(alias: string): string {
  return `convert_from(${alias}.lines, 'UTF8')`;
}

/** SQL: the lines of the customer `domain` (a text SQL expression) in the bulk row `alias`: one substring, by its byte offsets. */
export function customerLines(alias: string, domain: string): string {
  return `(SELECT convert_from(substring(${alias}.lines FROM ${alias}.starts[at] FOR ${alias}.starts[at + 1] - ${alias}.starts[at]), 'UTF8')
            FROM array_position(${alias}.domains, ${domain}) AS at)`;
}

/**
 * SQL: the lines of the bulk row `alias` that contain `quoted` (a text SQL expression: a value
 * as JSON writes it, quotes included), a superset of the lines with that value in a field.
 */
export function linesContaining(alias: string, quoted: string): string {
  return `(SELECT coalesce(string_agg(line, E'\\n') || E'\\n', '') FROM string_to_table(${linesText(alias)}, E'\\n') AS line WHERE strpos(line, ${quoted}) > 0)`;
}

/** A text as JSON writes it in a bulk line (quoted, escaped, ASCII). */
export function jsonQuoted(value: string): string {
  NON_ASCII.lastIndex = 0;
  const json = JSON.stringify(value);
  return NON_ASCII.test(json) ? json.replace(NON_ASCII, escapedChar) : json;
}

/** The entries of bulk lines (a whole `lines` value or a customer's part of it), in their order. */
export function entriesOfLines(lines: string): RequestLogRow[] {
  const rows: RequestLogRow[] = [];
  let start = 0;
  for (let end = lines.indexOf('\n'); end !== -1; start = end + 1, end = lines.indexOf('\n', start)) {
    const [ts, domain, actor, method, route, path, status, ip, user_agent, bytes_in, bytes_out, duration_ms, request_id] = JSON.parse(
      lines.slice(start, end),
    ) as Line;
    rows.push({ ts, domain, actor, method, route, path, status, ip, user_agent, bytes_in, bytes_out, duration_ms, request_id, refusal: null });
  }
  return rows;
}

/**
 * SQL: the bulk entries with `ts > from AND ts <= to` as rows of `columns` (of LINE_FIELDS),
 * `from` and `to` being timestamptz SQL expressions (parameters), of the bulk rows that also
 * meet `rowsWhere` (SQL over admin.request_log_bulk AS bulk) when given. For the queries that
 * read the entries of a time window (the security detectors): PostgreSQL parses each line of
 * the rows whose range meets the window, about a microsecond a line.
 */
export function bulkEntriesBetween(from: string, to: string, columns: readonly (typeof LINE_FIELDS)[number][], rowsWhere?: string): string {
  const field = (name: (typeof LINE_FIELDS)[number]) => {
    const at = `line ->> ${LINE_FIELDS.indexOf(name)}`;
    if (name === 'ts') return `(${at})::timestamptz`;
    if (name === 'status' || name === 'duration_ms') return `(${at})::int`;
    if (name === 'bytes_in' || name === 'bytes_out') return `(${at})::bigint`;
    return at;
  };
  return `SELECT ${columns.map((name) => `${field(name)} AS ${name}`).join(', ')}
      FROM admin.request_log_bulk AS bulk
     CROSS JOIN LATERAL string_to_table(rtrim(${linesText('bulk')}, E'\\n'), E'\\n') AS text_line
     CROSS JOIN LATERAL (SELECT text_line::jsonb AS line) AS parsed
     WHERE bulk.last_ts > ${from} AND bulk.first_ts <= ${to} AND bulk.first_ts >= date_trunc('day', ${from}, 'UTC')${rowsWhere ? ` AND (${rowsWhere})` : ''}
       AND ${field('ts')} > ${from} AND ${field('ts')} <= ${to}`;
}
