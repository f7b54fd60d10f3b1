import type { CustomerId, DeviceStatus } from '@app/contracts';
import { sql, toDate, toNullableDate } from '@app/infra';
import type { EntityManager } from 'typeorm';
import type { DeviceRecord } from '../domain/device.js';

/** The columns of a device row `d` that make a DeviceRecord. */
export const DEVICE_COLUMNS = 'd.hwid, d.status, d.tags, d.attributes, d.keys, d.has_keys, d.created_at, d.updated_at, d.last_seen_at, d.last_fw_version';

export type Row = Record<string, unknown>;

export function toDeviceRecord(customerId: CustomerId, row: Row): DeviceRecord {
  return {
    customerId,
    hwid: String(row.hwid),
    status: row.status as DeviceStatus,
    tags: (row.tags as string[] | null) ?? [],
    attributes: (row.attributes as Record<string, unknown> | null) ?? {},
    keys: (row.keys as string[] | null) ?? [],
    hasKeys: row.has_keys === true,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    lastSeenAt: toNullableDate(row.last_seen_at),
    lastFwVersion: row.last_fw_version === null || row.last_fw_version === undefined ? null : String(row.last_fw_version),
  };
}

/**
 * registry.device_tag mirrors device.tags (one row per tag of a device): whatever changes
 * device.tags adds and removes these rows in the same transaction. Pairs are [hwid, tag].
 */
export async function addTagRows(manager: EntityManager, customerId: CustomerId, pairs: readonly [string, string][]): Promise<void> {
  if (pairs.length === 0) return;
  const sorted = [...pairs].sort(([h1, t1], [h2, t2]) => (t1 < t2 ? -1 : t1 > t2 ? 1 : h1 < h2 ? -1 : h1 > h2 ? 1 : 0));
  await sql(
    manager,
    `INSERT INTO registry.device_tag (customer_id, tag, hwid)
       SELECT $1, x.tag, x.hwid FROM unnest($2::text[], $3::text[]) AS x(hwid, tag)
       ON CONFLICT DO NOTHING`,
    [customerId, sorted.map(([hwid]) => hwid), sorted.map(([, tag]) => tag)],
  );
}

export async function removeTagRows(manager: EntityManager, customerId: CustomerId, pairs: readonly [string, string][]): Promise<void> {
  if (pairs.length === 0) return;
  await sql(
    manager,
    `DELETE FROM registry.device_tag t USING unnest($2::text[], $3::text[]) AS x(hwid, tag)
       WHERE t.customer_id = $1 AND t.tag = x.tag AND t.hwid = x.hwid`,
    [customerId, pairs.map(([hwid]) => hwid), pairs.map(([, tag]) => tag)],
  );
}

/**
 * For the rest of the transaction, joins are nested loops: the batch statements join at most
 * 1000 keyed rows with a primary key, which is always a probe per row. Without this, a table
 * filled recently (statistics not yet gathered: the first imports of a customer) makes the
 * planner believe the customer has a few hundred devices and merge- or hash-join against all of
 * them, in every batch: a scan of the whole fleet per 1000 rows. `atMostOnce`: the commit also
 * does not wait for the WAL flush (in the same round trip).
 */
export async function probeByKey(manager: EntityManager, options: { atMostOnce?: boolean } = {}): Promise<void> {
  await sql(
    manager,
    options.atMostOnce
      ? `SELECT set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('synchronous_commit', 'off', true)`
      : `SELECT set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`,
  );
}
