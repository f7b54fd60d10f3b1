import type { CustomerId } from '@app/contracts';
import { sql, type Tenant, toInt } from '@app/infra';
import type { EntityManager } from 'typeorm';

/**
 * A tag across all devices of a customer (the device side of the Tags API), driven by
 * device_tag's index. Rename and delete run in a transaction of RegistryStore.
 */
export class DeviceTagRepository {
  constructor(private readonly manager: EntityManager) {}

  /** Devices per tag of one customer, sorted by tag (an index-only walk of device_tag). */
  async tagCounts(customerId: CustomerId): Promise<Map<string, number>> {
    const { rows } = await sql(this.manager, `SELECT tag, count(*) AS devices FROM registry.device_tag WHERE customer_id = $1 GROUP BY tag ORDER BY tag`, [
      customerId,
    ]);
    return new Map(rows.map((r) => [String(r.tag), toInt(r.devices)]));
  }

  /**
   * Renames a tag on every device of the customer; a device carrying both ends with `to` once.
   * Returns the devices that changed and the devices carrying `to` afterwards.
   */
  async renameTag(change: Tenant<{ from: string; to: string }>): Promise<{ changed: number; devices: number }> {
    const { customerId, from, to } = change;
    const tx = this.manager;
    let changed = 0;
    if (from !== to) {
      const result = await sql(
        tx,
        `UPDATE registry.device d
           SET tags = ARRAY(SELECT x FROM unnest(array_replace(d.tags, $2::text, $3::text)) AS x GROUP BY x ORDER BY x COLLATE "C"), updated_at = now()
           FROM registry.device_tag t
           WHERE t.customer_id = $1 AND t.tag = $2 AND d.customer_id = $1 AND d.hwid = t.hwid`,
        [customerId, from, to],
      );
      changed = result.affected;
      await sql(
        tx,
        `INSERT INTO registry.device_tag (customer_id, tag, hwid)
           SELECT customer_id, $3, hwid FROM registry.device_tag WHERE customer_id = $1 AND tag = $2
           ON CONFLICT DO NOTHING`,
        [customerId, from, to],
      );
      await sql(tx, `DELETE FROM registry.device_tag WHERE customer_id = $1 AND tag = $2`, [customerId, from]);
    }
    const { rows: count } = await sql(tx, `SELECT count(*) AS n FROM registry.device_tag WHERE customer_id = $1 AND tag = $2`, [customerId, to]);
    return { changed, devices: toInt(count[0].n) };
  }

  /** Removes a tag from every device of the customer; returns the devices that carried it. */
  async deleteTag(change: Tenant<{ tag: string }>): Promise<number> {
    const { customerId, tag } = change;
    const result = await sql(
      this.manager,
      `UPDATE registry.device d SET tags = array_remove(d.tags, $2::text), updated_at = now()
         FROM registry.device_tag t
         WHERE t.customer_id = $1 AND t.tag = $2 AND d.customer_id = $1 AND d.hwid = t.hwid`,
      [customerId, tag],
    );
    await sql(this.manager, `DELETE FROM registry.device_tag WHERE customer_id = $1 AND tag = $2`, [customerId, tag]);
    return result.affected;
  }
}
