import { type CustomerId, type DeviceStatus, LAST_SEEN_BUCKETS, type LastSeenAge } from '@app/contracts';
import { sql, type Tenant, toInt } from '@app/infra';
import type { EntityManager } from 'typeorm';
import type { DeviceRecord } from '../domain/device.js';
import { DEVICE_COLUMNS, toDeviceRecord } from './device-rows.js';

export interface DeviceFilter {
  /** Distinct tag names; empty: no tag filter. */
  readonly tags: readonly string[];
  readonly tagMode: 'any' | 'all';
  /** Case-sensitive HW id prefix. */
  readonly prefix?: string;
  readonly status?: DeviceStatus;
  readonly hasKeys?: boolean;
  /** What the device's last check reported (each given value must match exactly). */
  readonly reported?: { readonly fwVersion?: string; readonly hwName?: string; readonly hwVersion?: string; readonly fwName?: string };
  /** The age bucket of the last check, as GET /fleet/summary counts it (now). */
  readonly lastSeen?: LastSeenAge;
  readonly limit: number;
  readonly offset: number;
}

/** Reads of many devices: the pages of GET /devices and the per-customer counts of the admin customer list. */
export class DeviceListRepository {
  constructor(private readonly manager: EntityManager) {}

  /**
   * One page of a customer's devices in HW id byte order (`limit` rows from `offset`).
   *
   * The page's HW ids are found first, from indexes only where possible, and only those device
   * rows are read ("deferred join"): without tags a walk of the primary key (or of a partial
   * index for status=withdrawn / has_keys); with one tag, or all of two, a walk of device_tag's
   * primary key, already in HW id order. Any of several tags merges per-tag walks (see
   * listAnyOf). The prefix is a range on hwid (no LIKE, no wildcards). Status and has_keys are
   * literals, not parameters, so that the planner can match the partial indexes.
   */
  async list(filter: Tenant<DeviceFilter>): Promise<DeviceRecord[]> {
    const tags = [...filter.tags];
    if (tags.length > 1 && filter.tagMode === 'any') return this.listAnyOf(filter);
    const q = new SqlParams(filter.customerId);
    const range = prefixRange(q, filter.prefix);
    const deviceConditions = devicePredicates(filter, q)
      .map((c) => ` AND ${c}`)
      .join('');
    let keys: string;
    if (tags.length === 0) {
      keys = `SELECT d.hwid FROM registry.device d WHERE d.customer_id = $1${range('d.hwid')}${deviceConditions} ORDER BY d.hwid`;
    } else {
      const [first, second, ...rest] = tags;
      const join = second !== undefined ? ` JOIN registry.device_tag t2 ON t2.customer_id = $1 AND t2.tag = ${q.add(second)} AND t2.hwid = t1.hwid` : '';
      const needsDevice = rest.length > 0 || deviceConditions !== '';
      const device = needsDevice ? ' JOIN registry.device d ON d.customer_id = $1 AND d.hwid = t1.hwid' : '';
      const more = rest.length ? ` AND d.tags @> ${q.add(tags)}::text[]` : '';
      keys = `SELECT t1.hwid FROM registry.device_tag t1${join}${device}
              WHERE t1.customer_id = $1 AND t1.tag = ${q.add(first)}${range('t1.hwid')}${more}${deviceConditions} ORDER BY t1.hwid`;
    }
    keys += ` LIMIT ${q.add(filter.limit)} OFFSET ${q.add(filter.offset)}`;
    return this.devicesIn(q, keys);
  }

  /**
   * Devices carrying any of several tags: per-tag walks of device_tag in HW id order, each cut
   * at what the page can need, merged without duplicates. Without a device filter the page is
   * within the first offset+limit HW ids of every tag: one statement. With status or has_keys,
   * candidates are taken in chunks after the last HW id seen (keyset) and filtered on the device
   * rows until the page is full, so a rare filter costs what it scans, never a sort of all.
   */
  private async listAnyOf(filter: Tenant<DeviceFilter>): Promise<DeviceRecord[]> {
    const filtered = devicePredicates(filter, new SqlParams(filter.customerId)).length > 0;
    const candidates = (q: SqlParams, after: string | null, take: number) => {
      const range = prefixRange(q, filter.prefix);
      const from = after === null ? '' : ` AND hwid > ${q.add(after)}`;
      const cut = q.add(take);
      const branches = filter.tags.map(
        (tag) => `(SELECT hwid FROM registry.device_tag WHERE customer_id = $1 AND tag = ${q.add(tag)}${range('hwid')}${from} ORDER BY hwid LIMIT ${cut})`,
      );
      return `SELECT DISTINCT u.hwid FROM (${branches.join(' UNION ALL ')}) u ORDER BY u.hwid`;
    };
    if (!filtered) {
      const q = new SqlParams(filter.customerId);
      const keys = `${candidates(q, null, filter.offset + filter.limit)} LIMIT ${q.add(filter.limit)} OFFSET ${q.add(filter.offset)}`;
      return this.devicesIn(q, keys);
    }
    const chunk = Math.max(1000, filter.limit);
    const page: DeviceRecord[] = [];
    let skip = filter.offset;
    let after: string | null = null;
    for (;;) {
      const q = new SqlParams(filter.customerId);
      const hwids: string[] = (await sql(this.manager, `${candidates(q, after, chunk)} LIMIT ${q.add(chunk)}`, q.values)).rows.map((r) => String(r.hwid));
      if (hwids.length === 0) return page;
      const p = new SqlParams(filter.customerId);
      const ids = p.add(hwids);
      const conditions = devicePredicates(filter, p);
      const keys = `SELECT d.hwid FROM registry.device d WHERE d.customer_id = $1 AND d.hwid = ANY(${ids}::text[])${conditions.map((c) => ` AND ${c}`).join('')} ORDER BY d.hwid`;
      for (const device of await this.devicesIn(p, keys)) {
        if (skip > 0) skip--;
        else if (page.push(device) >= filter.limit) return page;
      }
      if (hwids.length < chunk) return page;
      after = hwids[hwids.length - 1]!;
    }
  }

  /** The device rows of the HW ids `keys` selects (in their order). */
  private async devicesIn(q: SqlParams, keys: string): Promise<DeviceRecord[]> {
    const { rows } = await sql(
      this.manager,
      `SELECT ${DEVICE_COLUMNS} FROM (${keys}) k JOIN registry.device d ON d.customer_id = $1 AND d.hwid = k.hwid ORDER BY k.hwid`,
      q.values,
    );
    const customerId = q.values[0] as CustomerId;
    return rows.map((row) => toDeviceRecord(customerId, row));
  }

  /**
   * Cross-tenant on purpose (admin customer list): device count and distinct tags per customer.
   * Distinct tags are a loose index scan of device_tag (one probe per tag, not per device).
   */
  async countsByCustomer(customerIds: readonly CustomerId[]): Promise<Map<CustomerId, { devices: number; tags: string[] }>> {
    const counts = new Map<CustomerId, { devices: number; tags: string[] }>();
    if (customerIds.length === 0) return counts;
    const { rows } = await sql(
      this.manager,
      `SELECT customer_id, count(*) AS n FROM registry.device WHERE customer_id = ANY($1::uuid[]) GROUP BY customer_id`,
      [[...customerIds]],
    );
    const devices = new Map(rows.map((r) => [String(r.customer_id), toInt(r.n)]));
    for (const customerId of customerIds) {
      const n = devices.get(customerId) ?? 0;
      const tags =
        n === 0
          ? []
          : (
              await sql(
                this.manager,
                `WITH RECURSIVE t(tag) AS (
                     (SELECT tag FROM registry.device_tag WHERE customer_id = $1 ORDER BY tag LIMIT 1)
                     UNION ALL
                     SELECT (SELECT s.tag FROM registry.device_tag s WHERE s.customer_id = $1 AND s.tag > t.tag ORDER BY s.tag LIMIT 1)
                     FROM t WHERE t.tag IS NOT NULL
                   )
                   SELECT tag FROM t WHERE tag IS NOT NULL`,
                [customerId],
              )
            ).rows.map((r) => String(r.tag));
      counts.set(customerId, { devices: n, tags });
    }
    return counts;
  }

  /** Customer deletion (cross-tenant on purpose): every device and device tag of the customer; rows removed. */
  async deleteCustomerRows(customerId: CustomerId): Promise<number> {
    let rows = 0;
    for (const table of ['device_tag', 'device']) {
      rows += (await sql(this.manager, `DELETE FROM registry.${table} WHERE customer_id = $1`, [customerId])).affected;
    }
    return rows;
  }
}

/** Positional parameters of one statement; $1 is always the customer. */
export class SqlParams {
  readonly values: unknown[];
  constructor(customerId: CustomerId) {
    this.values = [customerId];
  }
  add(value: unknown): string {
    return `$${this.values.push(value)}`;
  }
}

/** `column` within the HW ids starting with `prefix` (nothing without one). */
function prefixRange(q: SqlParams, prefix: string | undefined): (column: string) => string {
  if (!prefix) return () => '';
  const low = q.add(prefix);
  const high = q.add(prefixUpperBound(prefix));
  return (column) => ` AND ${column} >= ${low} AND ${column} < ${high}`;
}

/**
 * Conditions on device `d`: status and has_keys as literals (see list); the reported version and
 * product line as parameters of `q`; the last-seen bucket as bounds on last_seen_at from now, the
 * bounds GET /fleet/summary counts with (each bucket from the previous bound, inclusive, to its own).
 */
function devicePredicates(filter: DeviceFilter, q: SqlParams): string[] {
  const conditions: string[] = [];
  if (filter.status) conditions.push(filter.status === 'withdrawn' ? `d.status = 'withdrawn'` : `d.status = 'active'`);
  if (filter.hasKeys !== undefined) conditions.push(filter.hasKeys ? 'd.has_keys' : 'NOT d.has_keys');
  const reported = filter.reported ?? {};
  if (reported.fwVersion !== undefined) conditions.push(`d.last_fw_version = ${q.add(reported.fwVersion)}`);
  if (reported.hwName !== undefined) conditions.push(`d.last_hw_name = ${q.add(reported.hwName)}`);
  if (reported.hwVersion !== undefined) conditions.push(`d.last_hw_version = ${q.add(reported.hwVersion)}`);
  if (reported.fwName !== undefined) conditions.push(`d.last_fw_name = ${q.add(reported.fwName)}`);
  if (filter.lastSeen !== undefined) conditions.push(lastSeenCondition(filter.lastSeen));
  return conditions;
}

/** last_seen_at within the bucket's bounds (seconds before now; literals from LAST_SEEN_BUCKETS). */
function lastSeenCondition(age: LastSeenAge): string {
  if (age === 'never') return 'd.last_seen_at IS NULL';
  const ago = (seconds: number) => `now() - interval '${seconds} seconds'`;
  if (age === 'older') return `d.last_seen_at <= ${ago(LAST_SEEN_BUCKETS[LAST_SEEN_BUCKETS.length - 1].below)}`;
  const index = LAST_SEEN_BUCKETS.findIndex((bucket) => bucket.name === age);
  const newerThan = `d.last_seen_at > ${ago(LAST_SEEN_BUCKETS[index].below)}`;
  return index === 0 ? newerThan : `${newerThan} AND d.last_seen_at <= ${ago(LAST_SEEN_BUCKETS[index - 1].below)}`;
}

/** The smallest string above every string starting with `prefix` (its last character + 1; 0x7F at most). */
export function prefixUpperBound(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
