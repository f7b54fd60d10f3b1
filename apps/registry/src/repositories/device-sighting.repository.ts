import { sql, type Tenant, toInt } from '@app/infra';
import type { EntityManager } from 'typeorm';
import { probeByKey } from './device-rows.js';

/** One update check of a device of the customer the batch is for. */
export interface Sighting {
  readonly hwid: string;
  readonly fwVersion: string;
  readonly at: Date;
  /** The product line the check named and the version's order key (hex); null from senders that do not send them. */
  readonly line: { readonly hwName: string; readonly hwVersion: string; readonly fwName: string; readonly versionKey: string } | null;
}

/** last_seen_at and last_fw_version, from the update checks' sightings. */
export class DeviceSightingRepository {
  constructor(private readonly manager: EntityManager) {}

  /**
   * Update checks that named devices of one customer (already one per device, the latest, in
   * HW id order): one UPDATE for the batch, in its own transaction of RegistryStore;
   * last_seen_at only moves forward (what GREATEST would keep) and last_fw_version, the product
   * line and the version key come with the latest sighting. Unknown devices are ignored.
   * Returns the rows changed. A version change also writes device_history and the rollout
   * offers' updated_at, in the same statement (rare: nothing when versions stay).
   *
   * The rows travel as one JSON parameter ([hwid, fw_version, at] each), the form the request log
   * uses: about a third of the app's CPU per row of four pg-escaped arrays. The commit does not
   * wait for the WAL flush: sightings are at most once anyway (a lost batch only delays
   * last_seen_at until the device's next check), and the connection is free sooner.
   */
  async record(batch: Tenant<{ sightings: readonly Sighting[] }>): Promise<number> {
    const { customerId, sightings } = batch;
    await probeByKey(this.manager, { atMostOnce: true });
    // `o` is the row before the update: a version change (rare) adds a device_history row and
    // marks the device's rollout offers of builds it now has (updated_at, first time only).
    const { rows } = await sql(
      this.manager,
      `WITH changed AS (
           UPDATE registry.device d SET last_seen_at = (r->>2)::timestamptz, last_fw_version = r->>1,
               last_hw_name = r->>3, last_hw_version = r->>4, last_fw_name = r->>5, last_version_key = decode(r->>6, 'hex')
             FROM jsonb_array_elements($2::jsonb) AS r, registry.device o
             WHERE d.customer_id = $1 AND d.hwid = r->>0 AND (d.last_seen_at IS NULL OR d.last_seen_at <= (r->>2)::timestamptz)
               AND o.customer_id = d.customer_id AND o.hwid = d.hwid
             RETURNING d.hwid, d.last_fw_version, d.last_hw_name, d.last_hw_version, d.last_fw_name, d.last_version_key, d.last_seen_at,
               o.last_fw_version IS DISTINCT FROM d.last_fw_version AS moved),
         history AS (
           INSERT INTO registry.device_history (customer_id, hwid, fw_version, hw_name, hw_version, fw_name, seen_at)
           SELECT $1, c.hwid, c.last_fw_version, c.last_hw_name, c.last_hw_version, c.last_fw_name, c.last_seen_at FROM changed c WHERE c.moved
           ON CONFLICT DO NOTHING),
         offers AS (
           UPDATE registry.rollout_offer ro SET updated_at = c.last_seen_at FROM changed c
            WHERE c.moved AND ro.customer_id = $1 AND ro.hwid = c.hwid AND ro.updated_at IS NULL AND c.last_version_key >= ro.version_key)
         SELECT count(*) AS n FROM changed`,
      [
        customerId,
        JSON.stringify(
          sightings.map((s) =>
            s.line
              ? [s.hwid, s.fwVersion, s.at, s.line.hwName, s.line.hwVersion, s.line.fwName, s.line.versionKey]
              : [s.hwid, s.fwVersion, s.at, null, null, null, null],
          ),
        ),
      ],
    );
    return toInt(rows[0]?.n ?? 0);
  }
}
