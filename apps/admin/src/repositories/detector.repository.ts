import { BaseRepository, sql } from '@app/infra';
import { REFUSAL_CUSTOMER_NOT_FOUND } from '@app/contracts';
import {
  DEVICE_UPDATE_CHECK_ROUTE,
  LOG_FILE_NAME_PART,
  LOG_FILE_READ_ROUTES,
  UPDATE_CHECK_DOMAIN_PART,
  UPDATE_CHECK_HWID_PART,
} from '../detectors/detector-routes.js';
import { bulkEntriesBetween } from './request-log-bulk.js';

/** A time window of the request log: entries with from < ts <= to. */
export interface Window {
  readonly from: Date;
  readonly to: Date;
}

/** One address's refusals within a window. */
export interface AddressCount {
  readonly ip: string;
  /** Requests counted. */
  readonly requests: number;
  /** Distinct values of what the detector counts (paths, names). */
  readonly distinct: number;
  /** A few of those values, sorted. */
  readonly examples: string[];
  /** The customers named (request-log domain), a few. */
  readonly domains: string[];
}

/** One credential's refusals within a window. */
export interface CredentialCount {
  /** The request log's actor (`token:<id>`, `user:<id>`). */
  readonly actor: string;
  readonly requests: number;
  /** The addresses it came from, a few. */
  readonly addresses: string[];
  /** The routes, a few. */
  readonly examples: string[];
  /** Its own customer (the request log's domain of a refused request), a few. */
  readonly domains: string[];
}

/** Addresses reported per detector and run, at most (the worst first). */
const MAX_ADDRESSES = 100;
/** Examples in an event's detail. */
export const MAX_EXAMPLES = 5;
/** HW ids of one address read back to ask the registry about them, at most. */
export const MAX_HWIDS_CHECKED = 20_000;

function addressCount(r: Record<string, unknown>): AddressCount {
  return {
    ip: String(r.ip),
    requests: Number(r.requests),
    distinct: Number(r.distinct_count),
    examples: ((r.examples as string[] | null) ?? []).slice(0, MAX_EXAMPLES),
    domains: ((r.domains as string[] | null) ?? []).slice(0, MAX_EXAMPLES),
  };
}

/** A bulk row whose entries lie on both sides of the instant `at` (SQL: a timestamptz parameter). */
const ACROSS = (at: string) => `(bulk.first_ts <= ${at}::timestamptz AND bulk.last_ts > ${at}::timestamptz)`;

/** Every query of the security detectors: the request log over a window, and admin.detector_episode. */
export class DetectorRepository extends BaseRepository {
  /** Addresses with at least `threshold` answers of `status` in the window; the examples are the routes. */
  async refusalsByAddress(status: 401 | 429, window: Window, threshold: number): Promise<AddressCount[]> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT ip, count(*) AS requests, count(DISTINCT route) AS distinct_count,
              (array_agg(DISTINCT route))[1:${MAX_EXAMPLES}] AS examples,
              (array_agg(DISTINCT domain) FILTER (WHERE domain IS NOT NULL))[1:${MAX_EXAMPLES}] AS domains
         FROM admin.request_log
        WHERE status = $1 AND ts > $2 AND ts <= $3
        GROUP BY ip HAVING count(*) >= $4
        ORDER BY count(*) DESC, ip LIMIT ${MAX_ADDRESSES}`,
      [status, window.from.toISOString(), window.to.toISOString(), threshold],
    );
    return rows.map(addressCount);
  }

  /** Addresses whose reads of log files answered 404 for at least `threshold` distinct names in the window; the examples are names. */
  async missingLogFilesByAddress(window: Window, threshold: number): Promise<AddressCount[]> {
    const name = `split_part(path, '/', ${LOG_FILE_NAME_PART})`;
    const { rows: rows } = await sql(
      this.manager,
      `SELECT ip, count(*) AS requests, count(DISTINCT ${name}) AS distinct_count,
              (array_agg(DISTINCT ${name}))[1:${MAX_EXAMPLES}] AS examples,
              (array_agg(DISTINCT domain) FILTER (WHERE domain IS NOT NULL))[1:${MAX_EXAMPLES}] AS domains
         FROM admin.request_log
        WHERE status = 404 AND method IN ('GET', 'HEAD') AND route = ANY($1::text[]) AND ts > $2 AND ts <= $3
        GROUP BY ip HAVING count(DISTINCT ${name}) >= $4
        ORDER BY count(DISTINCT ${name}) DESC, ip LIMIT ${MAX_ADDRESSES}`,
      [LOG_FILE_READ_ROUTES, window.from.toISOString(), window.to.toISOString(), threshold],
    );
    return rows.map(addressCount);
  }

  /** Credentials refused `customer not found` at least `threshold` times in the window. */
  async customerRefusalsByCredential(window: Window, threshold: number): Promise<CredentialCount[]> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT actor, count(*) AS requests, (array_agg(DISTINCT ip))[1:${MAX_EXAMPLES}] AS addresses,
              (array_agg(DISTINCT route))[1:${MAX_EXAMPLES}] AS examples,
              (array_agg(DISTINCT domain) FILTER (WHERE domain IS NOT NULL))[1:${MAX_EXAMPLES}] AS domains
         FROM admin.request_log
        WHERE status = 404 AND refusal = $1 AND actor IS NOT NULL AND ts > $2 AND ts <= $3
        GROUP BY actor HAVING count(*) >= $4
        ORDER BY count(*) DESC, actor LIMIT ${MAX_ADDRESSES}`,
      [REFUSAL_CUSTOMER_NOT_FOUND, window.from.toISOString(), window.to.toISOString(), threshold],
    );
    return rows.map((r) => ({
      actor: String(r.actor),
      requests: Number(r.requests),
      addresses: (r.addresses as string[] | null) ?? [],
      examples: (r.examples as string[] | null) ?? [],
      domains: (r.domains as string[] | null) ?? [],
    }));
  }

  /**
   * Addresses whose update checks named at least `threshold` distinct devices (domain and HW
   * id) in the window, known or not: the candidates, whose HW ids are then put to the registry.
   * Refused input (400) does not count. Only the addresses with at least `threshold` entries
   * (the bulk rows' `ip_counts`, no line read) have their entries read.
   */
  async deviceChecksByAddress(window: Window, threshold: number): Promise<AddressCount[]> {
    const device = `split_part(path, '/', ${UPDATE_CHECK_DOMAIN_PART}) || '/' || split_part(path, '/', ${UPDATE_CHECK_HWID_PART})`;
    const { rows: rows } = await sql(
      this.manager,
      `WITH candidates AS MATERIALIZED (
         SELECT ip FROM (
           SELECT ip, count(*) AS n FROM admin.request_log WHERE route = $1 AND status <> 400 AND ts > $2 AND ts <= $3 GROUP BY ip
           UNION ALL
           SELECT address.ip, sum(address.n) FROM admin.request_log_bulk AS bulk
            CROSS JOIN LATERAL unnest(bulk.ips, bulk.ip_counts) AS address(ip, n)
            WHERE bulk.last_ts > $2 AND bulk.first_ts <= $3 AND bulk.first_ts >= date_trunc('day', $2::timestamptz, 'UTC')
            GROUP BY address.ip
         ) AS checks GROUP BY ip HAVING sum(n) >= $4
       )
       SELECT ip, count(*) AS requests, count(DISTINCT ${device}) AS distinct_count, NULL AS examples,
              (array_agg(DISTINCT split_part(path, '/', ${UPDATE_CHECK_DOMAIN_PART})))[1:${MAX_EXAMPLES}] AS domains
         FROM (SELECT ip, path FROM admin.request_log
                WHERE route = $1 AND status <> 400 AND ts > $2 AND ts <= $3 AND ip IN (SELECT ip FROM candidates)
               UNION ALL
               SELECT ip, path FROM (${bulkEntriesBetween('$2::timestamptz', '$3::timestamptz', ['ip', 'path', 'route'], 'bulk.ips && ARRAY(SELECT ip FROM candidates)')}) AS bulk
                WHERE route = $1 AND ip IN (SELECT ip FROM candidates)) AS checks
        GROUP BY ip HAVING count(DISTINCT ${device}) >= $4
        ORDER BY count(DISTINCT ${device}) DESC, ip LIMIT ${MAX_ADDRESSES}`,
      [DEVICE_UPDATE_CHECK_ROUTE, window.from.toISOString(), window.to.toISOString(), threshold],
    );
    return rows.map(addressCount);
  }

  /** The distinct (domain, HW id) pairs of an address's update checks in the window, as they appear in the path (URL-encoded). */
  async devicesCheckedBy(ip: string, window: Window): Promise<Array<{ domain: string; hwid: string }>> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT DISTINCT split_part(path, '/', ${UPDATE_CHECK_DOMAIN_PART}) AS domain, split_part(path, '/', ${UPDATE_CHECK_HWID_PART}) AS hwid
         FROM (SELECT path FROM admin.request_log WHERE route = $1 AND status <> 400 AND ip = $2 AND ts > $3 AND ts <= $4
               UNION ALL
               SELECT path FROM (${bulkEntriesBetween('$3::timestamptz', '$4::timestamptz', ['ip', 'path', 'route'], 'bulk.ips @> ARRAY[$2::text]')}) AS bulk
                WHERE route = $1 AND ip = $2) AS checks
        LIMIT ${MAX_HWIDS_CHECKED}`,
      [DEVICE_UPDATE_CHECK_ROUTE, ip, window.from.toISOString(), window.to.toISOString()],
    );
    return rows.map((r) => ({ domain: String(r.domain), hwid: String(r.hwid) }));
  }

  /** All requests in the window and in the baseline before it (baseline.from < ts <= window.from). */
  async requestCounts(baselineFrom: Date, window: Window): Promise<{ current: number; baseline: number }> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT coalesce(sum(n) FILTER (WHERE ts > $2), 0) AS current, coalesce(sum(n) FILTER (WHERE ts <= $2), 0) AS baseline FROM (
         SELECT ts, 1 AS n FROM admin.request_log WHERE ts > $1 AND ts <= $3
         UNION ALL
         SELECT bulk.first_ts, (SELECT sum(c) FROM unnest(bulk.counts) AS c) FROM admin.request_log_bulk AS bulk
          WHERE bulk.first_ts > $1 AND bulk.last_ts <= $3 AND NOT ${ACROSS('$2')} AND bulk.first_ts >= date_trunc('day', $1::timestamptz, 'UTC')
         UNION ALL
         SELECT ts, 1 FROM (${bulkEntriesBetween('$1::timestamptz', '$3::timestamptz', ['ts'], `${ACROSS('$1')} OR ${ACROSS('$2')} OR ${ACROSS('$3')}`)}) AS across_an_edge
       ) AS requests`,
      [baselineFrom.toISOString(), window.from.toISOString(), window.to.toISOString()],
    );
    return { current: Number(rows[0]?.current ?? 0), baseline: Number(rows[0]?.baseline ?? 0) };
  }

  /** The addresses sending the most requests in the window. */
  async topAddresses(window: Window, limit = MAX_EXAMPLES): Promise<Array<{ ip: string; requests: number }>> {
    const { rows: rows } = await sql(
      this.manager,
      `SELECT ip, count(*) AS requests
         FROM (SELECT ip FROM admin.request_log WHERE ts > $1 AND ts <= $2
               UNION ALL
               SELECT ip FROM (${bulkEntriesBetween('$1::timestamptz', '$2::timestamptz', ['ip'])}) AS bulk) AS requests
        GROUP BY ip ORDER BY count(*) DESC, ip LIMIT $3`,
      [window.from.toISOString(), window.to.toISOString(), limit],
    );
    return rows.map((r) => ({ ip: String(r.ip), requests: Number(r.requests) }));
  }

  /**
   * Notes that a detector saw `key` over its threshold at `at`. Returns true when this opens a
   * new episode (none yet, or the last one quiet for `cooldownMs`): the caller raises its
   * event. Several replicas may see the same finding: the row lock of the upsert lets one of
   * them open the episode, the others find it open.
   */
  async sighted(kind: string, key: string, at: Date, cooldownMs: number): Promise<boolean> {
    const continued = (
      await sql(
        this.manager,
        `UPDATE admin.detector_episode SET last_seen_at = GREATEST(last_seen_at, $3)
        WHERE kind = $1 AND key = $2 AND last_seen_at >= $4 RETURNING kind`,
        [kind, key, at.toISOString(), new Date(at.getTime() - cooldownMs).toISOString()],
      )
    ).rows;
    if (continued.length > 0) return false;
    const opened = (
      await sql(
        this.manager,
        `INSERT INTO admin.detector_episode AS e (kind, key, started_at, last_seen_at) VALUES ($1, $2, $3, $3)
       ON CONFLICT (kind, key) DO UPDATE SET started_at = EXCLUDED.started_at, last_seen_at = EXCLUDED.last_seen_at, event_id = NULL
        WHERE e.last_seen_at < $4
       RETURNING kind`,
        [kind, key, at.toISOString(), new Date(at.getTime() - cooldownMs).toISOString()],
      )
    ).rows;
    return opened.length > 0;
  }

  /** The event an episode raised. */
  async attachEvent(kind: string, key: string, eventId: number): Promise<void> {
    await sql(this.manager, `UPDATE admin.detector_episode SET event_id = $3 WHERE kind = $1 AND key = $2`, [kind, key, eventId]);
  }

  /** Gives up an episode whose event could not be recorded: the next run opens it again. */
  async release(kind: string, key: string): Promise<void> {
    await sql(this.manager, `DELETE FROM admin.detector_episode WHERE kind = $1 AND key = $2 AND event_id IS NULL`, [kind, key]);
  }

  /** Forgets episodes quiet since `before`. */
  async forget(before: Date): Promise<void> {
    await sql(this.manager, `DELETE FROM admin.detector_episode WHERE last_seen_at < $1`, [before.toISOString()]);
  }
}
