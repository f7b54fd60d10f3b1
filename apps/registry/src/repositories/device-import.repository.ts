import { sql, type Tenant } from '@app/infra';
import type { EntityManager } from 'typeorm';
import { addTagRows, probeByKey, removeTagRows } from './device-rows.js';

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

/** What one import row would do to the stored device (POST /devices/import?dry_run=true). */
export interface RowPreview {
  readonly hwid: string;
  readonly change: 'create' | 'update' | 'none';
  /** The stored tags; null for a new device. */
  readonly tagsBefore: string[] | null;
  readonly tagsAfter: string[];
  readonly attributesChanged: boolean;
}

/** The writes of POST /devices/import: one batch of rows per transaction of RegistryStore. */
export class DeviceImportRepository {
  constructor(private readonly manager: EntityManager) {}

  /**
   * Upserts a batch of import rows (distinct HW ids) in the current transaction, with a few
   * set-based statements whatever the batch size: insert the new devices; update the existing
   * ones whose given values differ (the others are not written at all, so updated_at stays);
   * then add and remove the device_tag rows of what changed.
   */
  /**
   * What upsertBatch would do to a batch (distinct HW ids), read only: the same comparison
   * (tags or attributes distinct from the stored ones) in one statement, in the batch's order.
   */
  async previewBatch(batch: Tenant<{ rows: readonly UpsertRow[] }>): Promise<RowPreview[]> {
    const { customerId, rows } = batch;
    if (rows.length === 0) return [];
    const { rows: found } = await sql(
      this.manager,
      `SELECT v.hwid, d.hwid IS NOT NULL AS stored, d.tags AS tags_before, COALESCE(v.tags, d.tags, '{}') AS tags_after,
                (d.tags IS DISTINCT FROM COALESCE(v.tags, d.tags)) AS tags_changed,
                (d.attributes IS DISTINCT FROM COALESCE(v.attributes, d.attributes)) AS attributes_changed
         FROM (SELECT u.hwid, string_to_array(u.tags, ' ') AS tags, u.attributes::jsonb AS attributes
               FROM unnest($2::text[], $3::text[], $4::text[]) AS u(hwid, tags, attributes)) v
         LEFT JOIN registry.device d ON d.customer_id = $1 AND d.hwid = v.hwid`,
      [
        customerId,
        rows.map((r) => r.hwid),
        rows.map((r) => (r.tags === null ? null : r.tags.join(' '))),
        rows.map((r) => (r.attributes === null ? null : JSON.stringify(r.attributes))),
      ],
    );
    const byHwid = new Map(found.map((r) => [String(r.hwid), r]));
    return rows.map((row) => {
      const r = byHwid.get(row.hwid)!;
      const stored = r.stored === true;
      const attributesChanged = stored && r.attributes_changed === true;
      return {
        hwid: row.hwid,
        change: !stored ? 'create' : r.tags_changed === true || attributesChanged ? 'update' : 'none',
        tagsBefore: stored ? (r.tags_before as string[]) : null,
        tagsAfter: r.tags_after as string[],
        attributesChanged: stored ? attributesChanged : row.attributes !== null && Object.keys(row.attributes).length > 0,
      };
    });
  }

  async upsertBatch(batch: Tenant<{ rows: readonly UpsertRow[] }>): Promise<UpsertCounts> {
    const { customerId, rows } = batch;
    const tx = this.manager;
    if (rows.length === 0) return { created: 0, updated: 0, unchanged: 0 };
    await probeByKey(tx);
    const columns = (list: readonly UpsertRow[]) => [
      list.map((r) => r.hwid),
      list.map((r) => (r.tags === null ? null : r.tags.join(' '))),
      list.map((r) => (r.attributes === null ? null : JSON.stringify(r.attributes))),
    ];
    const { rows: inserted } = await sql(
      tx,
      `INSERT INTO registry.device (customer_id, hwid, tags, attributes)
         SELECT $1, v.hwid, COALESCE(string_to_array(v.tags, ' '), '{}'), COALESCE(v.attributes::jsonb, '{}')
         FROM unnest($2::text[], $3::text[], $4::text[]) AS v(hwid, tags, attributes)
         ON CONFLICT (customer_id, hwid) DO NOTHING
         RETURNING hwid, tags`,
      [customerId, ...columns(rows)],
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
      const { rows: current } = await sql(
        tx,
        `SELECT d.hwid, d.tags FROM registry.device d JOIN ${input} ON d.customer_id = $1 AND d.hwid = v.hwid
           WHERE ${differs} ORDER BY d.hwid FOR NO KEY UPDATE OF d`,
        [customerId, ...columns(existing)],
      );
      const tagsBefore = new Map(current.map((r) => [String(r.hwid), r.tags as string[]]));
      const toUpdate = existing.filter((r) => tagsBefore.has(r.hwid));
      const changed = toUpdate.length
        ? (
            await sql(
              tx,
              `UPDATE registry.device d
               SET tags = COALESCE(v.tags, d.tags), attributes = COALESCE(v.attributes, d.attributes), updated_at = now()
               FROM ${input}
               WHERE d.customer_id = $1 AND d.hwid = v.hwid AND ${differs}
               RETURNING d.hwid, d.tags`,
              [customerId, ...columns(toUpdate)],
            )
          ).rows
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
    await removeTagRows(tx, customerId, removeTags);
    await addTagRows(tx, customerId, addTags);
    return { created: created.size, updated, unchanged: rows.length - created.size - updated };
  }
}
