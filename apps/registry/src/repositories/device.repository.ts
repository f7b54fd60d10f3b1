import { Inject, Injectable } from '@nestjs/common';
import type { CustomerId, DeviceStatus } from '@app/contracts';
import { sqlState, toInt } from '@app/infra';
import { DataSource, type EntityManager } from 'typeorm';
import { DeviceEntity } from '../entities/device.entity.js';
import type { Tenant } from '@app/infra';

/** A device to insert; tags sorted and distinct (see device-rules). */
export interface NewDevice {
  readonly hwid: string;
  readonly tags: readonly string[];
  readonly attributes: Record<string, unknown>;
  readonly keys: readonly string[];
}

export interface DeviceFilter {
  /** Distinct tag names; empty: no tag filter. */
  readonly tags: readonly string[];
  readonly tagMode: 'any' | 'all';
  /** Case-sensitive HW id prefix. */
  readonly prefix?: string;
  readonly status?: DeviceStatus;
  readonly hasKeys?: boolean;
  readonly limit: number;
  readonly offset: number;
}

/** One row of an import: null tags/attributes keep the stored value (and are empty for a new device). */
export interface UpsertRow {
  readonly hwid: string;
  readonly tags: readonly string[] | null;
  readonly attributes: Record<string, unknown> | null;
}

export interface UpsertCounts {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
}

/** One update check of a device of the customer the batch is for. */
export interface Sighting {
  readonly hwid: string;
  readonly fwVersion: string;
  readonly at: Date;
}

export interface DeviceLookupRow {
  readonly status: DeviceStatus;
  readonly tags: string[];
}

/** Attempts of a transaction that lost a deadlock or a serialization conflict. */
const TRANSACTION_ATTEMPTS = 3;
const RETRYABLE = new Set(['40P01', '40001']);

const COLUMNS = 'd.hwid, d.status, d.tags, d.attributes, d.keys, d.has_keys, d.created_at, d.updated_at, d.last_seen_at, d.last_fw_version';

type Row = Record<string, unknown>;

/**
 * Every query of registry.device and registry.device_tag. Tenant methods take `Tenant<...>`
 * (see enforce.ts). Writes that must be atomic take the EntityManager of a transaction opened
 * with {@link transaction}: on the embedded database one session serves the whole process, so
 * inside a transaction every statement must go through its manager.
 */
@Injectable()
export class DeviceRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** Runs `work` in a transaction, again (up to 3 times) when it lost a deadlock. */
  async transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(work);
      } catch (err) {
        if (attempt >= TRANSACTION_ATTEMPTS || !RETRYABLE.has(sqlState(err) ?? '')) throw err;
      }
    }
  }

  async find(query: Tenant<{ hwid: string }>, tx?: EntityManager, options: { lock?: boolean } = {}): Promise<DeviceEntity | null> {
    const rows = await rowsOf(
      (tx ?? this.dataSource.manager).query(
        `SELECT ${COLUMNS} FROM registry.device d WHERE d.customer_id = $1 AND d.hwid = $2${options.lock ? ' FOR UPDATE' : ''}`,
        [query.customerId, query.hwid],
      ),
    );
    return rows.length ? toEntity(query.customerId, rows[0]!) : null;
  }

  /** The update check's question: a primary-key point lookup, status and tags only. */
  async lookup(query: Tenant<{ hwid: string }>): Promise<DeviceLookupRow | null> {
    const rows = await rowsOf(
      this.dataSource.manager.query(`SELECT status, tags FROM registry.device WHERE customer_id = $1 AND hwid = $2`, [query.customerId, query.hwid]),
    );
    if (!rows.length) return null;
    return { status: rows[0]!.status as DeviceStatus, tags: rows[0]!.tags as string[] };
  }

  /** Many devices of one customer with one indexed query; HW ids without a device are absent from the map. */
  async lookupMany(query: Tenant<{ hwids: readonly string[] }>): Promise<Map<string, DeviceLookupRow>> {
    const rows = await rowsOf(
      this.dataSource.manager.query(`SELECT hwid, status, tags FROM registry.device WHERE customer_id = $1 AND hwid = ANY($2::text[])`, [query.customerId, [...query.hwids]]),
    );
    return new Map(rows.map((row) => [String(row.hwid), { status: row.status as DeviceStatus, tags: row.tags as string[] }]));
  }

  /** Inserts the device and its device_tag rows; null when the HW id is taken. */
  async insert(device: Tenant<NewDevice>, tx: EntityManager): Promise<DeviceEntity | null> {
    const rows = await rowsOf(
      tx.query(
        `INSERT INTO registry.device AS d (customer_id, hwid, tags, attributes, keys)
         VALUES ($1, $2, $3::text[], $4::jsonb, $5::text[])
         ON CONFLICT (customer_id, hwid) DO NOTHING
         RETURNING ${COLUMNS}`,
        [device.customerId, device.hwid, [...device.tags], JSON.stringify(device.attributes), [...device.keys]],
      ),
    );
    if (!rows.length) return null;
    await this.addTagRows(tx, device.customerId, device.tags.map((tag) => [device.hwid, tag]));
    return toEntity(device.customerId, rows[0]!);
  }

  /** Sets the given fields (updated_at too) of a device locked by the caller's transaction. */
  async update(
    change: Tenant<{ hwid: string; attributes?: Record<string, unknown>; keys?: readonly string[]; status?: DeviceStatus }>,
    tx: EntityManager,
  ): Promise<DeviceEntity> {
    const sets: string[] = ['updated_at = now()'];
    const params: unknown[] = [change.customerId, change.hwid];
    if (change.attributes !== undefined) sets.push(`attributes = $${params.push(JSON.stringify(change.attributes))}::jsonb`);
    if (change.keys !== undefined) sets.push(`keys = $${params.push([...change.keys])}::text[]`);
    if (change.status !== undefined) sets.push(`status = $${params.push(change.status)}`);
    const rows = await rowsOf(tx.query(`UPDATE registry.device d SET ${sets.join(', ')} WHERE d.customer_id = $1 AND d.hwid = $2 RETURNING ${COLUMNS}`, params));
    if (!rows.length) throw new Error(`device ${change.hwid} vanished inside its transaction`);
    return toEntity(change.customerId, rows[0]!);
  }

  /** Replaces the tag set of a device locked by the caller's transaction (`before`: its current tags). */
  async setTags(change: Tenant<{ hwid: string; before: readonly string[]; after: readonly string[] }>, tx: EntityManager): Promise<DeviceEntity> {
    const rows = await rowsOf(
      tx.query(`UPDATE registry.device d SET tags = $3::text[], updated_at = now() WHERE d.customer_id = $1 AND d.hwid = $2 RETURNING ${COLUMNS}`, [
        change.customerId,
        change.hwid,
        [...change.after],
      ]),
    );
    if (!rows.length) throw new Error(`device ${change.hwid} vanished inside its transaction`);
    const after = new Set(change.after);
    const before = new Set(change.before);
    await this.removeTagRows(tx, change.customerId, change.before.filter((t) => !after.has(t)).map((tag) => [change.hwid, tag]));
    await this.addTagRows(tx, change.customerId, change.after.filter((t) => !before.has(t)).map((tag) => [change.hwid, tag]));
    return toEntity(change.customerId, rows[0]!);
  }

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
  async list(filter: Tenant<DeviceFilter>): Promise<DeviceEntity[]> {
    const tags = [...filter.tags];
    if (tags.length > 1 && filter.tagMode === 'any') return this.listAnyOf(filter);
    const q = new SqlParams(filter.customerId);
    const range = prefixRange(q, filter.prefix);
    const deviceConditions = devicePredicates(filter).map((c) => ` AND ${c}`).join('');
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
  private async listAnyOf(filter: Tenant<DeviceFilter>): Promise<DeviceEntity[]> {
    const conditions = devicePredicates(filter);
    const candidates = (q: SqlParams, after: string | null, take: number) => {
      const range = prefixRange(q, filter.prefix);
      const from = after === null ? '' : ` AND hwid > ${q.add(after)}`;
      const cut = q.add(take);
      const branches = filter.tags.map(
        (tag) => `(SELECT hwid FROM registry.device_tag WHERE customer_id = $1 AND tag = ${q.add(tag)}${range('hwid')}${from} ORDER BY hwid LIMIT ${cut})`,
      );
      return `SELECT DISTINCT u.hwid FROM (${branches.join(' UNION ALL ')}) u ORDER BY u.hwid`;
    };
    if (conditions.length === 0) {
      const q = new SqlParams(filter.customerId);
      const keys = `${candidates(q, null, filter.offset + filter.limit)} LIMIT ${q.add(filter.limit)} OFFSET ${q.add(filter.offset)}`;
      return this.devicesIn(q, keys);
    }
    const chunk = Math.max(1000, filter.limit);
    const page: DeviceEntity[] = [];
    let skip = filter.offset;
    let after: string | null = null;
    for (;;) {
      const q = new SqlParams(filter.customerId);
      const hwids: string[] = (await rowsOf(this.dataSource.manager.query(`${candidates(q, after, chunk)} LIMIT ${q.add(chunk)}`, q.values))).map((r) => String(r.hwid));
      if (hwids.length === 0) return page;
      const p = new SqlParams(filter.customerId);
      const keys = `SELECT d.hwid FROM registry.device d WHERE d.customer_id = $1 AND d.hwid = ANY(${p.add(hwids)}::text[])${conditions.map((c) => ` AND ${c}`).join('')} ORDER BY d.hwid`;
      for (const device of await this.devicesIn(p, keys)) {
        if (skip > 0) skip--;
        else if (page.push(device) >= filter.limit) return page;
      }
      if (hwids.length < chunk) return page;
      after = hwids[hwids.length - 1]!;
    }
  }

  /** The device rows of the HW ids `keys` selects (in their order). */
  private async devicesIn(q: SqlParams, keys: string): Promise<DeviceEntity[]> {
    const rows = await rowsOf(this.dataSource.manager.query(`SELECT ${COLUMNS} FROM (${keys}) k JOIN registry.device d ON d.customer_id = $1 AND d.hwid = k.hwid ORDER BY k.hwid`, q.values));
    const customerId = q.values[0] as CustomerId;
    return rows.map((row) => toEntity(customerId, row));
  }

  /**
   * Upserts a batch of import rows (distinct HW ids) in the caller's transaction, with a few
   * set-based statements whatever the batch size: insert the new devices; update the existing
   * ones whose given values differ (the others are not written at all, so updated_at stays);
   * then add and remove the device_tag rows of what changed.
   */
  async upsertBatch(batch: Tenant<{ rows: readonly UpsertRow[] }>, tx: EntityManager): Promise<UpsertCounts> {
    const { customerId, rows } = batch;
    if (rows.length === 0) return { created: 0, updated: 0, unchanged: 0 };
    await probeByKey(tx);
    const columns = (list: readonly UpsertRow[]) => [
      list.map((r) => r.hwid),
      list.map((r) => (r.tags === null ? null : r.tags.join(' '))),
      list.map((r) => (r.attributes === null ? null : JSON.stringify(r.attributes))),
    ];
    const inserted = await rowsOf(
      tx.query(
        `INSERT INTO registry.device (customer_id, hwid, tags, attributes)
         SELECT $1, v.hwid, COALESCE(string_to_array(v.tags, ' '), '{}'), COALESCE(v.attributes::jsonb, '{}')
         FROM unnest($2::text[], $3::text[], $4::text[]) AS v(hwid, tags, attributes)
         ON CONFLICT (customer_id, hwid) DO NOTHING
         RETURNING hwid, tags`,
        [customerId, ...columns(rows)],
      ),
    );
    const created = new Set(inserted.map((r) => String(r.hwid)));
    const addTags: [string, string][] = [];
    const removeTags: [string, string][] = [];
    for (const row of inserted) for (const tag of row.tags as string[]) addTags.push([String(row.hwid), tag]);

    const existing = rows.filter((r) => !created.has(r.hwid));
    let updated = 0;
    if (existing.length) {
      // The rows whose given values differ, locked (in HW id order) and read in a statement of
      // their own: under READ COMMITTED a row changed meanwhile is re-checked on its latest
      // version, so these tags are current and stay so until commit. Unchanged rows are only read.
      const input = `(SELECT v.hwid, string_to_array(v.tags, ' ') AS tags, v.attributes::jsonb AS attributes
                      FROM unnest($2::text[], $3::text[], $4::text[]) AS v(hwid, tags, attributes)) v`;
      const differs = `(d.tags IS DISTINCT FROM COALESCE(v.tags, d.tags) OR d.attributes IS DISTINCT FROM COALESCE(v.attributes, d.attributes))`;
      const current = await rowsOf(
        tx.query(
          `SELECT d.hwid, d.tags FROM registry.device d JOIN ${input} ON d.customer_id = $1 AND d.hwid = v.hwid
           WHERE ${differs} ORDER BY d.hwid FOR NO KEY UPDATE OF d`,
          [customerId, ...columns(existing)],
        ),
      );
      const tagsBefore = new Map(current.map((r) => [String(r.hwid), r.tags as string[]]));
      const toUpdate = existing.filter((r) => tagsBefore.has(r.hwid));
      const changed = toUpdate.length
        ? await rowsOf(
            tx.query(
              `UPDATE registry.device d
               SET tags = COALESCE(v.tags, d.tags), attributes = COALESCE(v.attributes, d.attributes), updated_at = now()
               FROM ${input}
               WHERE d.customer_id = $1 AND d.hwid = v.hwid AND ${differs}
               RETURNING d.hwid, d.tags`,
              [customerId, ...columns(toUpdate)],
            ),
          )
        : [];
      updated = changed.length;
      for (const row of changed) {
        const hwid = String(row.hwid);
        const before = new Set(tagsBefore.get(hwid) ?? []);
        const after = new Set(row.tags as string[]);
        for (const tag of after) if (!before.has(tag)) addTags.push([hwid, tag]);
        for (const tag of before) if (!after.has(tag)) removeTags.push([hwid, tag]);
      }
    }
    await this.removeTagRows(tx, customerId, removeTags);
    await this.addTagRows(tx, customerId, addTags);
    return { created: created.size, updated, unchanged: rows.length - created.size - updated };
  }

  /**
   * Update checks that named devices of one customer (already one per device, the latest, in
   * HW id order): one UPDATE for the batch; last_seen_at only moves forward (what GREATEST would
   * keep) and last_fw_version comes with the latest sighting. Unknown devices are ignored.
   * Returns the rows changed.
   *
   * The rows travel as one JSON parameter ([hwid, fw_version, at] each), the form the request log
   * uses: about a third of the app's CPU per row of four pg-escaped arrays. The commit does not
   * wait for the WAL flush: sightings are at most once anyway (a lost batch only delays
   * last_seen_at until the device's next check), and the connection is free sooner.
   */
  async recordSightings(batch: Tenant<{ sightings: readonly Sighting[] }>): Promise<number> {
    const { customerId, sightings } = batch;
    if (sightings.length === 0) return 0;
    return this.transaction(async (tx) => {
      await probeByKey(tx, { atMostOnce: true });
      const result = await tx.query(
        `UPDATE registry.device d SET last_seen_at = (r->>2)::timestamptz, last_fw_version = r->>1
         FROM jsonb_array_elements($2::jsonb) AS r
         WHERE d.customer_id = $1 AND d.hwid = r->>0 AND (d.last_seen_at IS NULL OR d.last_seen_at <= (r->>2)::timestamptz)`,
        [customerId, JSON.stringify(sightings.map((s) => [s.hwid, s.fwVersion, s.at]))],
      );
      return affectedOf(result);
    });
  }

  /** Devices per tag of one customer, sorted by tag (an index-only walk of device_tag). */
  async tagCounts(customerId: CustomerId): Promise<Map<string, number>> {
    const rows = await rowsOf(
      this.dataSource.manager.query(`SELECT tag, count(*) AS devices FROM registry.device_tag WHERE customer_id = $1 GROUP BY tag ORDER BY tag`, [customerId]),
    );
    return new Map(rows.map((r) => [String(r.tag), toInt(r.devices)]));
  }

  /**
   * Renames a tag on every device of the customer; a device carrying both ends with `to` once.
   * Returns the devices that changed and the devices carrying `to` afterwards.
   */
  async renameTag(change: Tenant<{ from: string; to: string }>): Promise<{ changed: number; devices: number }> {
    const { customerId, from, to } = change;
    return this.transaction(async (tx) => {
      let changed = 0;
      if (from !== to) {
        const result = await tx.query(
          `UPDATE registry.device d
           SET tags = ARRAY(SELECT x FROM unnest(array_replace(d.tags, $2::text, $3::text)) AS x GROUP BY x ORDER BY x COLLATE "C"), updated_at = now()
           FROM registry.device_tag t
           WHERE t.customer_id = $1 AND t.tag = $2 AND d.customer_id = $1 AND d.hwid = t.hwid`,
          [customerId, from, to],
        );
        changed = affectedOf(result);
        await tx.query(
          `INSERT INTO registry.device_tag (customer_id, tag, hwid)
           SELECT customer_id, $3, hwid FROM registry.device_tag WHERE customer_id = $1 AND tag = $2
           ON CONFLICT DO NOTHING`,
          [customerId, from, to],
        );
        await tx.query(`DELETE FROM registry.device_tag WHERE customer_id = $1 AND tag = $2`, [customerId, from]);
      }
      const count = await rowsOf(tx.query(`SELECT count(*) AS n FROM registry.device_tag WHERE customer_id = $1 AND tag = $2`, [customerId, to]));
      return { changed, devices: toInt(count[0]!.n) };
    });
  }

  /** Removes a tag from every device of the customer; returns the devices that carried it. */
  async deleteTag(change: Tenant<{ tag: string }>): Promise<number> {
    const { customerId, tag } = change;
    return this.transaction(async (tx) => {
      const result = await tx.query(
        `UPDATE registry.device d SET tags = array_remove(d.tags, $2::text), updated_at = now()
         FROM registry.device_tag t
         WHERE t.customer_id = $1 AND t.tag = $2 AND d.customer_id = $1 AND d.hwid = t.hwid`,
        [customerId, tag],
      );
      await tx.query(`DELETE FROM registry.device_tag WHERE customer_id = $1 AND tag = $2`, [customerId, tag]);
      return affectedOf(result);
    });
  }

  /**
   * Cross-tenant on purpose (admin customer list): device count and distinct tags per customer.
   * Distinct tags are a loose index scan of device_tag (one probe per tag, not per device).
   */
  async countsByCustomer(customerIds: readonly CustomerId[]): Promise<Map<CustomerId, { devices: number; tags: string[] }>> {
    const counts = new Map<CustomerId, { devices: number; tags: string[] }>();
    if (customerIds.length === 0) return counts;
    const rows = await rowsOf(
      this.dataSource.manager.query(`SELECT customer_id, count(*) AS n FROM registry.device WHERE customer_id = ANY($1::uuid[]) GROUP BY customer_id`, [
        [...customerIds],
      ]),
    );
    const devices = new Map(rows.map((r) => [String(r.customer_id), toInt(r.n)]));
    for (const customerId of customerIds) {
      const n = devices.get(customerId) ?? 0;
      const tags =
        n === 0
          ? []
          : (
              await rowsOf(
                this.dataSource.manager.query(
                  `WITH RECURSIVE t(tag) AS (
                     (SELECT tag FROM registry.device_tag WHERE customer_id = $1 ORDER BY tag LIMIT 1)
                     UNION ALL
                     SELECT (SELECT s.tag FROM registry.device_tag s WHERE s.customer_id = $1 AND s.tag > t.tag ORDER BY s.tag LIMIT 1)
                     FROM t WHERE t.tag IS NOT NULL
                   )
                   SELECT tag FROM t WHERE tag IS NOT NULL`,
                  [customerId],
                ),
              )
            ).map((r) => String(r.tag));
      counts.set(customerId, { devices: n, tags });
    }
    return counts;
  }

  private async addTagRows(tx: EntityManager, customerId: CustomerId, pairs: readonly [string, string][]): Promise<void> {
    if (pairs.length === 0) return;
    const sorted = [...pairs].sort(([h1, t1], [h2, t2]) => (t1 < t2 ? -1 : t1 > t2 ? 1 : h1 < h2 ? -1 : h1 > h2 ? 1 : 0));
    await tx.query(
      `INSERT INTO registry.device_tag (customer_id, tag, hwid)
       SELECT $1, x.tag, x.hwid FROM unnest($2::text[], $3::text[]) AS x(hwid, tag)
       ON CONFLICT DO NOTHING`,
      [customerId, sorted.map(([hwid]) => hwid), sorted.map(([, tag]) => tag)],
    );
  }

  private async removeTagRows(tx: EntityManager, customerId: CustomerId, pairs: readonly [string, string][]): Promise<void> {
    if (pairs.length === 0) return;
    await tx.query(
      `DELETE FROM registry.device_tag t USING unnest($2::text[], $3::text[]) AS x(hwid, tag)
       WHERE t.customer_id = $1 AND t.tag = x.tag AND t.hwid = x.hwid`,
      [customerId, pairs.map(([hwid]) => hwid), pairs.map(([, tag]) => tag)],
    );
  }
}

/**
 * For the rest of the transaction, joins are nested loops: the batch statements join at most
 * 1000 keyed rows with a primary key, which is always a probe per row. Without this, a table
 * filled recently (statistics not yet gathered: the first imports of a customer) makes the
 * planner believe the customer has a few hundred devices and merge- or hash-join against all of
 * them, in every batch: a scan of the whole fleet per 1000 rows. `atMostOnce`: the commit also
 * does not wait for the WAL flush (in the same round trip).
 */
async function probeByKey(tx: EntityManager, options: { atMostOnce?: boolean } = {}): Promise<void> {
  await tx.query(
    options.atMostOnce
      ? `SELECT set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('synchronous_commit', 'off', true)`
      : `SELECT set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`,
  );
}

/** Positional parameters of one statement; $1 is always the customer. */
class SqlParams {
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

/** Conditions on device `d` for status and has_keys, as literals (see list). */
function devicePredicates(filter: DeviceFilter): string[] {
  const conditions: string[] = [];
  if (filter.status) conditions.push(filter.status === 'withdrawn' ? `d.status = 'withdrawn'` : `d.status = 'active'`);
  if (filter.hasKeys !== undefined) conditions.push(filter.hasKeys ? 'd.has_keys' : 'NOT d.has_keys');
  return conditions;
}

/** The smallest string above every string starting with `prefix` (its last character + 1; 0x7F at most). */
export function prefixUpperBound(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** TypeORM answers UPDATE and DELETE as [rows, affected], everything else as rows. */
async function rowsOf(result: Promise<unknown>): Promise<Row[]> {
  const raw = await result;
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') return raw[0] as Row[];
  return (Array.isArray(raw) ? raw : []) as Row[];
}

function affectedOf(raw: unknown): number {
  if (Array.isArray(raw) && raw.length === 2 && typeof raw[1] === 'number') return raw[1];
  return 0;
}

function toEntity(customerId: CustomerId, row: Row): DeviceEntity {
  const entity = new DeviceEntity();
  entity.customerId = customerId;
  entity.hwid = String(row.hwid);
  entity.status = row.status as DeviceStatus;
  entity.tags = (row.tags as string[] | null) ?? [];
  entity.attributes = (row.attributes as Record<string, unknown> | null) ?? {};
  entity.keys = (row.keys as string[] | null) ?? [];
  entity.hasKeys = row.has_keys === true;
  entity.createdAt = toDate(row.created_at)!;
  entity.updatedAt = toDate(row.updated_at)!;
  entity.lastSeenAt = toDate(row.last_seen_at);
  entity.lastFwVersion = row.last_fw_version === null || row.last_fw_version === undefined ? null : String(row.last_fw_version);
  return entity;
}

function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(String(value));
}
