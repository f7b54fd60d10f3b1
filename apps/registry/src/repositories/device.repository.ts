import type { DeviceStatus } from '@app/contracts';
import { sql, type Tenant } from '@app/infra';
import type { EntityManager } from 'typeorm';
import type { DeviceRecord } from '../domain/device.js';
import { addTagRows, DEVICE_COLUMNS, removeTagRows, toDeviceRecord } from './device-rows.js';

/** A device to insert; tags sorted and distinct (see device-values). */
export interface NewDevice {
  readonly hwid: string;
  readonly tags: readonly string[];
  readonly attributes: Record<string, unknown>;
  readonly keys: readonly string[];
}

export interface DeviceLookupRow {
  readonly status: DeviceStatus;
  readonly tags: string[];
  /** The device's rollout bucket (device.rollout_bucket). */
  readonly bucket: number;
}

/**
 * One device at a time: the reads of a device (the record, the update check's lookup) and
 * the writes of the device endpoints. Writes run in a transaction of RegistryStore; `lock`
 * reads take the row lock that the following write of the transaction relies on.
 */
export class DeviceRepository {
  constructor(private readonly manager: EntityManager) {}

  async find(query: Tenant<{ hwid: string }>, options: { lock?: boolean } = {}): Promise<DeviceRecord | null> {
    const { rows } = await sql(
      this.manager,
      `SELECT ${DEVICE_COLUMNS} FROM registry.device d WHERE d.customer_id = $1 AND d.hwid = $2${options.lock ? ' FOR UPDATE' : ''}`,
      [query.customerId, query.hwid],
    );
    return rows.length ? toDeviceRecord(query.customerId, rows[0]) : null;
  }

  /** The update check's question: a primary-key point lookup, status and tags only. */
  async lookup(query: Tenant<{ hwid: string }>): Promise<DeviceLookupRow | null> {
    const { rows } = await sql(this.manager, `SELECT status, tags, rollout_bucket FROM registry.device WHERE customer_id = $1 AND hwid = $2`, [
      query.customerId,
      query.hwid,
    ]);
    if (!rows.length) return null;
    return { status: rows[0].status as DeviceStatus, tags: rows[0].tags as string[], bucket: Number(rows[0].rollout_bucket) };
  }

  /** Many devices of one customer with one indexed query; HW ids without a device are absent from the map. */
  async lookupMany(query: Tenant<{ hwids: readonly string[] }>): Promise<Map<string, DeviceLookupRow>> {
    const { rows } = await sql(
      this.manager,
      `SELECT hwid, status, tags, rollout_bucket FROM registry.device WHERE customer_id = $1 AND hwid = ANY($2::text[])`,
      [query.customerId, [...query.hwids]],
    );
    return new Map(
      rows.map((row) => [String(row.hwid), { status: row.status as DeviceStatus, tags: row.tags as string[], bucket: Number(row.rollout_bucket) }]),
    );
  }

  /** Inserts the device and its device_tag rows; null when the HW id is taken. */
  async insert(device: Tenant<NewDevice>): Promise<DeviceRecord | null> {
    const { rows } = await sql(
      this.manager,
      `INSERT INTO registry.device AS d (customer_id, hwid, tags, attributes, keys)
         VALUES ($1, $2, $3::text[], $4::jsonb, $5::text[])
         ON CONFLICT (customer_id, hwid) DO NOTHING
         RETURNING ${DEVICE_COLUMNS}`,
      [device.customerId, device.hwid, [...device.tags], JSON.stringify(device.attributes), [...device.keys]],
    );
    if (!rows.length) return null;
    await addTagRows(
      this.manager,
      device.customerId,
      device.tags.map((tag) => [device.hwid, tag]),
    );
    return toDeviceRecord(device.customerId, rows[0]);
  }

  /** Sets the given fields (updated_at too) of a device locked earlier in the transaction. */
  async update(change: Tenant<{ hwid: string; attributes?: Record<string, unknown>; keys?: readonly string[]; status?: DeviceStatus }>): Promise<DeviceRecord> {
    const sets: string[] = ['updated_at = now()'];
    const params: unknown[] = [change.customerId, change.hwid];
    if (change.attributes !== undefined) sets.push(`attributes = $${params.push(JSON.stringify(change.attributes))}::jsonb`);
    if (change.keys !== undefined) sets.push(`keys = $${params.push([...change.keys])}::text[]`);
    if (change.status !== undefined) sets.push(`status = $${params.push(change.status)}`);
    const { rows } = await sql(
      this.manager,
      `UPDATE registry.device d SET ${sets.join(', ')} WHERE d.customer_id = $1 AND d.hwid = $2 RETURNING ${DEVICE_COLUMNS}`,
      params,
    );
    if (!rows.length) throw new Error(`device ${change.hwid} vanished inside its transaction`);
    return toDeviceRecord(change.customerId, rows[0]);
  }

  /** Replaces the tag set of a device locked earlier in the transaction (`before`: its current tags). */
  async setTags(change: Tenant<{ hwid: string; before: readonly string[]; after: readonly string[] }>): Promise<DeviceRecord> {
    const { rows } = await sql(
      this.manager,
      `UPDATE registry.device d SET tags = $3::text[], updated_at = now() WHERE d.customer_id = $1 AND d.hwid = $2 RETURNING ${DEVICE_COLUMNS}`,
      [change.customerId, change.hwid, [...change.after]],
    );
    if (!rows.length) throw new Error(`device ${change.hwid} vanished inside its transaction`);
    const after = new Set(change.after);
    const before = new Set(change.before);
    await removeTagRows(
      this.manager,
      change.customerId,
      change.before.filter((t) => !after.has(t)).map((tag) => [change.hwid, tag]),
    );
    await addTagRows(
      this.manager,
      change.customerId,
      change.after.filter((t) => !before.has(t)).map((tag) => [change.hwid, tag]),
    );
    return toDeviceRecord(change.customerId, rows[0]);
  }
}
