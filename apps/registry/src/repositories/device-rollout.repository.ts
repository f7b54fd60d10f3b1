import { type DeviceStatus, LAST_SEEN_BUCKETS } from '@app/contracts';
import { sql, type Tenant, toDate, toInt, toNullableDate } from '@app/infra';
import type { EntityManager } from 'typeorm';
import { SqlParams } from './device-list.repository.js';

/** A product line: hw_name, hw_version, fw_name as an update check names them. */
export interface ProductLine {
  readonly hwName: string;
  readonly hwVersion: string;
  readonly fwName: string;
}

/**
 * Known, active devices a build is offered to: all, or those sharing one of `tags`; counted on
 * the build's line below its version key (raw bytes), and among those that never checked in.
 */
export interface AudienceQuery {
  readonly tags: readonly string[] | null;
  readonly line: ProductLine;
  readonly versionKey: Buffer;
  readonly limit: number;
  readonly offset: number;
}

export interface AudienceRows {
  readonly devices: number;
  readonly neverCheckedIn: number;
  readonly items: readonly { readonly hwid: string; readonly lastFwVersion: string; readonly lastSeenAt: Date }[];
}

export interface FleetFilter {
  readonly tag?: string;
  readonly hwName?: string;
  readonly hwVersion?: string;
  readonly fwName?: string;
  /** Versions listed, most devices first. */
  readonly versions: number;
  /** The moment the ages are measured from. */
  readonly at: Date;
}

export interface FleetCounts {
  readonly active: number;
  readonly withdrawn: number;
  readonly versions: readonly { readonly fwVersion: string; readonly devices: number }[];
  readonly otherVersions: number;
  readonly neverReported: number;
  /** Devices per LAST_SEEN_BUCKETS entry, then the older ones. */
  readonly lastSeen: { readonly never: number; readonly buckets: readonly number[]; readonly older: number };
}

export interface DeviceLastCheck {
  readonly status: DeviceStatus;
  readonly tags: readonly string[];
  readonly lastSeenAt: Date | null;
  readonly lastFwVersion: string | null;
  readonly line: ProductLine | null;
}

/**
 * Reads of a rollout (docs/api.md "Rollouts"): a build's audience, the fleet summary and one
 * device's last check. Audience and summary read device_line_idx (active devices by product
 * line and HW id, with version key, version and last_seen_at included): index-only scans of
 * the range the filters select; a tag is a semi-join with device_tag's primary key.
 */
export class DeviceRolloutRepository {
  constructor(private readonly manager: EntityManager) {}

  /** In a transaction of RegistryStore (see indexesOnly). */
  async audience(query: Tenant<AudienceQuery>): Promise<AudienceRows> {
    await indexesOnly(this.manager);
    const onLine = (q: SqlParams) =>
      `d.customer_id = $1 AND d.status = 'active' AND d.last_hw_name = ${q.add(query.line.hwName)} AND d.last_hw_version = ${q.add(query.line.hwVersion)}` +
      ` AND d.last_fw_name = ${q.add(query.line.fwName)} AND d.last_version_key < ${q.add(query.versionKey)}${sharingTag(q, query.tags)}`;
    const count = new SqlParams(query.customerId);
    const never = new SqlParams(query.customerId);
    const page = new SqlParams(query.customerId);
    // One after the other: in a transaction they share one connection anyway.
    const { rows: counted } = await sql(this.manager, `SELECT count(*) AS n FROM registry.device d WHERE ${onLine(count)}`, count.values);
    const { rows: neverCounted } = await sql(
      this.manager,
      `SELECT count(*) AS n FROM registry.device d WHERE d.customer_id = $1 AND d.status = 'active' AND d.last_hw_name IS NULL${sharingTag(never, query.tags)}`,
      never.values,
    );
    const { rows } = await sql(
      this.manager,
      `SELECT d.hwid, d.last_fw_version, d.last_seen_at FROM registry.device d WHERE ${onLine(page)}
           ORDER BY d.last_hw_name, d.last_hw_version, d.last_fw_name, d.hwid LIMIT ${page.add(query.limit)} OFFSET ${page.add(query.offset)}`,
      page.values,
    );
    return {
      devices: toInt(counted[0]?.n ?? 0),
      neverCheckedIn: toInt(neverCounted[0]?.n ?? 0),
      items: rows.map((row) => ({ hwid: String(row.hwid), lastFwVersion: String(row.last_fw_version), lastSeenAt: toDate(row.last_seen_at) })),
    };
  }

  /**
   * Active devices by last reported version (the `versions` most common, the rest summed) and
   * by last-seen age; withdrawn devices counted apart (device_withdrawn_idx). One pass over the
   * index range: a group per version with its age counts, summed here. In a transaction of
   * RegistryStore (see indexesOnly).
   */
  async fleet(filter: Tenant<FleetFilter>): Promise<FleetCounts> {
    await indexesOnly(this.manager);
    const q = new SqlParams(filter.customerId);
    const conditions = fleetConditions(q, filter);
    const at = q.add(filter.at);
    const within = LAST_SEEN_BUCKETS.map(
      (bucket) => `count(*) FILTER (WHERE d.last_seen_at > ${at}::timestamptz - interval '${bucket.below} seconds') AS b_${bucket.name}`,
    );
    const { rows: groups } = await sql(
      this.manager,
      `SELECT d.last_fw_version AS version, count(*) AS n, count(*) FILTER (WHERE d.last_seen_at IS NULL) AS never, ${within.join(', ')}
           FROM registry.device d WHERE d.customer_id = $1 AND d.status = 'active'${conditions} GROUP BY d.last_fw_version`,
      q.values,
    );
    const w = new SqlParams(filter.customerId);
    const { rows: withdrawn } = await sql(
      this.manager,
      `SELECT count(*) AS n FROM registry.device d WHERE d.customer_id = $1 AND d.status = 'withdrawn'${fleetConditions(w, filter)}`,
      w.values,
    );
    let active = 0;
    let never = 0;
    let neverReported = 0;
    const inBuckets = LAST_SEEN_BUCKETS.map(() => 0);
    const versions: { fwVersion: string; devices: number }[] = [];
    for (const row of groups) {
      const n = toInt(row.n);
      active += n;
      never += toInt(row.never);
      LAST_SEEN_BUCKETS.forEach((bucket, i) => (inBuckets[i] += toInt(row[`b_${bucket.name}`])));
      if (row.version === null || row.version === undefined) neverReported += n;
      else versions.push({ fwVersion: String(row.version), devices: n });
    }
    versions.sort((a, b) => b.devices - a.devices || (a.fwVersion < b.fwVersion ? -1 : a.fwVersion > b.fwVersion ? 1 : 0));
    const listed = versions.slice(0, filter.versions);
    const seen = inBuckets[inBuckets.length - 1];
    // Cumulative counts ("seen within") become the buckets between two bounds.
    const buckets = inBuckets.map((n, i) => n - (i === 0 ? 0 : inBuckets[i - 1]));
    return {
      active,
      withdrawn: toInt(withdrawn[0]?.n ?? 0),
      versions: listed,
      otherVersions: versions.slice(filter.versions).reduce((sum, v) => sum + v.devices, 0),
      neverReported,
      lastSeen: { never, buckets, older: active - never - seen },
    };
  }

  /** One device's status, tags and last check (the update preview), by primary key. */
  async lastCheck(query: Tenant<{ hwid: string }>): Promise<DeviceLastCheck | null> {
    const { rows } = await sql(
      this.manager,
      `SELECT status, tags, last_seen_at, last_fw_version, last_hw_name, last_hw_version, last_fw_name FROM registry.device WHERE customer_id = $1 AND hwid = $2`,
      [query.customerId, query.hwid],
    );
    const row = rows[0];
    if (!row) return null;
    const hasLine = typeof row.last_hw_name === 'string' && typeof row.last_hw_version === 'string' && typeof row.last_fw_name === 'string';
    return {
      status: row.status as DeviceStatus,
      tags: row.tags as string[],
      lastSeenAt: toNullableDate(row.last_seen_at),
      lastFwVersion: typeof row.last_fw_version === 'string' ? row.last_fw_version : null,
      line: hasLine ? { hwName: row.last_hw_name as string, hwVersion: row.last_hw_version as string, fwName: row.last_fw_name as string } : null,
    };
  }
}

/**
 * For the rest of the transaction, neither sequential nor bitmap heap scans: with a customer
 * holding most of the table (one large fleet, or a test database) the planner finds a scan of
 * the heap (parallel, or through a bitmap of the primary key) about as cheap as the index-only
 * scan of device_line_idx, which reads no heap page once the table is vacuumed (and is
 * narrower than rows carrying attributes and keys); a sequential scan of a shared table also
 * reads every customer's devices.
 */
export async function indexesOnly(manager: EntityManager): Promise<void> {
  await sql(manager, `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`);
}

/**
 * Devices `d` carrying one of `tags` (none: no condition): a semi-join on device_tag's primary
 * key, which the planner runs as a probe per device or a hash of the tag's devices, whichever
 * the tag's size makes cheaper.
 */
export function sharingTag(q: SqlParams, tags: readonly string[] | null): string {
  if (tags === null) return '';
  return ` AND EXISTS (SELECT 1 FROM registry.device_tag t WHERE t.customer_id = $1 AND t.tag = ANY(${q.add([...tags])}::text[]) AND t.hwid = d.hwid)`;
}

function fleetConditions(q: SqlParams, filter: FleetFilter): string {
  let conditions = '';
  if (filter.hwName !== undefined) conditions += ` AND d.last_hw_name = ${q.add(filter.hwName)}`;
  if (filter.hwVersion !== undefined) conditions += ` AND d.last_hw_version = ${q.add(filter.hwVersion)}`;
  if (filter.fwName !== undefined) conditions += ` AND d.last_fw_name = ${q.add(filter.fwName)}`;
  if (filter.tag !== undefined) conditions += sharingTag(q, [filter.tag]);
  return conditions;
}
