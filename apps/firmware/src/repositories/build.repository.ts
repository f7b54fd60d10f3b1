import { type CustomerId, type FwType, isUuid } from '@app/contracts';
import type { EntityManager } from 'typeorm';
import type { Build, BuildNotes, BuildStatus } from '../domain/build.js';
import { BuildEntity } from '../entities/build.entity.js';
import type { Tenant } from '@app/infra';
import { type Row, sql, toBuffer, toDate } from '@app/infra';

export interface BuildIdentity {
  readonly hwName: string;
  readonly hwVersion: string;
  readonly fwName: string;
  readonly fwVersion: string;
  readonly fwType: FwType;
}

export interface NewBuild extends BuildIdentity {
  readonly versionKey: Buffer;
  readonly buildDate: Date;
  readonly generalRelease: boolean;
  readonly objectKey: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly whatString: string | null;
  readonly notes: BuildNotes | null;
  readonly uploadedBy: string;
}

export interface BuildFilter {
  readonly fwName?: string;
  readonly hwName?: string;
  readonly hwVersion?: string;
  readonly fwType?: FwType;
  readonly tag?: string;
  readonly status?: BuildStatus;
  readonly general?: boolean;
  readonly order: 'asc' | 'desc';
  readonly limit: number;
  readonly offset: number;
}

const TAGS_OF_B = `(SELECT coalesce(array_agg(t.tag ORDER BY t.tag), '{}'::text[]) FROM firmware.build_tag t WHERE t.build_id = b.id) AS tags`;

/**
 * Every query of firmware.build and firmware.build_tag. Tenant methods take `Tenant<...>`
 * (libs/infra database/tenant.ts). Bound to an EntityManager by FirmwareStore: the
 * DataSource's own, or a transaction's.
 */
export class BuildRepository {
  constructor(private readonly manager: EntityManager) {}

  /**
   * Insert-if-absent on the build's identity (ON CONFLICT ON CONSTRAINT build_identity_key DO
   * NOTHING): the new row, or null when the identity is taken. A concurrent uncommitted insert
   * of the same identity makes this statement wait for it, so the winner is visible afterwards.
   */
  async insertIfAbsent(build: Tenant<NewBuild>): Promise<Build | null> {
    const { rows } = await sql(
      this.manager,
      `INSERT INTO firmware.build (customer_id, hw_name, hw_version, fw_name, fw_version, fw_type, version_key, build_date, general_release,
         object_key, size_bytes, sha256, what_string, notes_object_key, notes_size_bytes, notes_sha256, uploaded_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
       ON CONFLICT ON CONSTRAINT build_identity_key DO NOTHING
       RETURNING *, '{}'::text[] AS tags`,
      [
        build.customerId,
        build.hwName,
        build.hwVersion,
        build.fwName,
        build.fwVersion,
        build.fwType,
        build.versionKey,
        build.buildDate.toISOString(),
        build.generalRelease,
        build.objectKey,
        build.sizeBytes,
        build.sha256,
        build.whatString,
        build.notes?.objectKey ?? null,
        build.notes?.sizeBytes ?? null,
        build.notes?.sha256 ?? null,
        build.uploadedBy,
      ],
    );
    return rows.length ? fromRow(rows[0]) : null;
  }

  async findByIdentity(identity: Tenant<BuildIdentity>): Promise<Build | null> {
    const { rows } = await sql(
      this.manager,
      `SELECT b.*, ${TAGS_OF_B} FROM firmware.build b
       WHERE b.customer_id = $1 AND b.hw_name = $2 AND b.hw_version = $3 AND b.fw_name = $4 AND b.fw_version = $5 AND b.fw_type = $6`,
      [identity.customerId, identity.hwName, identity.hwVersion, identity.fwName, identity.fwVersion, identity.fwType],
    );
    return rows.length ? fromRow(rows[0]) : null;
  }

  /** null for an unknown id (also one that is no UUID). */
  async findById(query: Tenant<{ id: string }>): Promise<Build | null> {
    if (!isUuid(query.id)) return null;
    const { rows } = await sql(this.manager, `SELECT b.*, ${TAGS_OF_B} FROM firmware.build b WHERE b.id = $1 AND b.customer_id = $2`, [
      query.id.toLowerCase(),
      query.customerId,
    ]);
    return rows.length ? fromRow(rows[0]) : null;
  }

  /** One page, sorted by build_date, then version, then id (all descending unless order=asc). */
  async list(query: Tenant<BuildFilter>): Promise<Build[]> {
    const params: unknown[] = [query.customerId];
    const where = ['b.customer_id = $1'];
    const add = (condition: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(condition(`$${params.length}`));
    };
    if (query.fwName !== undefined) add((n) => `b.fw_name = ${n}`, query.fwName);
    if (query.hwName !== undefined) add((n) => `b.hw_name = ${n}`, query.hwName);
    if (query.hwVersion !== undefined) add((n) => `b.hw_version = ${n}`, query.hwVersion);
    if (query.fwType !== undefined) add((n) => `b.fw_type = ${n}`, query.fwType);
    if (query.status !== undefined) add((n) => `b.status = ${n}`, query.status);
    if (query.general !== undefined) add((n) => `b.general_release = ${n}`, query.general);
    if (query.tag !== undefined) add((n) => `EXISTS (SELECT 1 FROM firmware.build_tag f WHERE f.build_id = b.id AND f.tag = ${n})`, query.tag);
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    params.push(query.limit, query.offset);
    const { rows } = await sql(
      this.manager,
      `SELECT b.*, ${TAGS_OF_B} FROM firmware.build b WHERE ${where.join(' AND ')}
       ORDER BY b.build_date ${direction}, b.version_key ${direction}, b.id ${direction}
       LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return rows.map(fromRow);
  }

  /**
   * The build locked FOR UPDATE until the end of the transaction (call it inside
   * FirmwareStore.transaction), with its tags; null for an unknown id (also one that is no UUID).
   */
  async lockById(query: Tenant<{ id: string }>): Promise<Build | null> {
    if (!isUuid(query.id)) return null;
    const id = query.id.toLowerCase();
    const { rows } = await sql(this.manager, `SELECT * FROM firmware.build WHERE id = $1 AND customer_id = $2 FOR UPDATE`, [id, query.customerId]);
    if (!rows.length) return null;
    const tags = await sql(this.manager, `SELECT tag FROM firmware.build_tag WHERE build_id = $1 ORDER BY tag`, [id]);
    return fromRow({ ...rows[0], tags: tags.rows.map((row) => String(row.tag)) });
  }

  /** Sets status, general_release and tag_filter_disabled and counts one more revision; the build as stored now, tags as given. */
  async saveSettings(
    query: Tenant<{ id: string; status: BuildStatus; generalRelease: boolean; tagFilterDisabled: boolean; tags: readonly string[] }>,
  ): Promise<Build> {
    const { rows } = await sql(
      this.manager,
      `UPDATE firmware.build SET status = $3, tag_filter_disabled = $4, general_release = $5, revision = revision + 1, updated_at = now()
       WHERE id = $1 AND customer_id = $2 RETURNING *`,
      [query.id, query.customerId, query.status, query.tagFilterDisabled, query.generalRelease],
    );
    return fromRow({ ...rows[0], tags: [...query.tags] });
  }

  /** Replaces the build's whole tag set. */
  async replaceTags(query: Tenant<{ id: string; tags: readonly string[] }>): Promise<void> {
    await sql(this.manager, `DELETE FROM firmware.build_tag WHERE build_id = $1`, [query.id]);
    if (query.tags.length) {
      await sql(this.manager, `INSERT INTO firmware.build_tag (build_id, customer_id, tag) SELECT $1, $2, unnest($3::text[])`, [
        query.id,
        query.customerId,
        [...query.tags],
      ]);
    }
  }

  /** A served /dl link: one more download (never read-modify-write). False for an unknown build. */
  async recordDownload(query: Tenant<{ id: string; kind: 'binary' | 'notes' }>): Promise<boolean> {
    if (!isUuid(query.id)) return false;
    const column = query.kind === 'notes' ? 'notes_download_count' : 'download_count';
    const { affected } = await sql(this.manager, `UPDATE firmware.build SET ${column} = ${column} + 1 WHERE id = $1 AND customer_id = $2`, [
      query.id.toLowerCase(),
      query.customerId,
    ]);
    return affected > 0;
  }

  /** Every active build of a customer with its tags: what the update-check index is built from. */
  async activeBuilds(query: Tenant): Promise<Build[]> {
    const { rows } = await sql(this.manager, `SELECT b.*, ${TAGS_OF_B} FROM firmware.build b WHERE b.customer_id = $1 AND b.status = 'active'`, [
      query.customerId,
    ]);
    return rows.map(fromRow);
  }

  /** Builds carrying each tag of the customer. */
  async tagCounts(query: Tenant): Promise<Map<string, number>> {
    const { rows } = await sql(this.manager, `SELECT tag, count(*) AS n FROM firmware.build_tag WHERE customer_id = $1 GROUP BY tag`, [query.customerId]);
    return new Map(rows.map((row) => [String(row.tag), Number(row.n)]));
  }

  async countWithTag(query: Tenant<{ tag: string }>): Promise<number> {
    const { rows } = await sql(this.manager, `SELECT count(*) AS n FROM firmware.build_tag WHERE customer_id = $1 AND tag = $2`, [query.customerId, query.tag]);
    return Number(rows[0]?.n ?? 0);
  }

  /** Renames a tag on every build of the customer, merging into `to` where a build already has it: the builds changed. */
  async renameTag(query: Tenant<{ from: string; to: string }>): Promise<number> {
    const changed = await this.countRevision(query.customerId, query.from);
    await sql(
      this.manager,
      `INSERT INTO firmware.build_tag (build_id, customer_id, tag)
       SELECT build_id, customer_id, $3 FROM firmware.build_tag WHERE customer_id = $1 AND tag = $2
       ON CONFLICT ON CONSTRAINT build_tag_pkey DO NOTHING`,
      [query.customerId, query.from, query.to],
    );
    await sql(this.manager, `DELETE FROM firmware.build_tag WHERE customer_id = $1 AND tag = $2`, [query.customerId, query.from]);
    return changed;
  }

  /** Removes a tag from every build of the customer: the builds changed. */
  async deleteTag(query: Tenant<{ tag: string }>): Promise<number> {
    const changed = await this.countRevision(query.customerId, query.tag);
    await sql(this.manager, `DELETE FROM firmware.build_tag WHERE customer_id = $1 AND tag = $2`, [query.customerId, query.tag]);
    return changed;
  }

  /** One more revision for every build carrying `tag` (their tags are about to change): how many. */
  private async countRevision(customerId: CustomerId, tag: string): Promise<number> {
    const { affected } = await sql(
      this.manager,
      `UPDATE firmware.build SET revision = revision + 1, updated_at = now()
       WHERE customer_id = $1 AND id IN (SELECT build_id FROM firmware.build_tag WHERE customer_id = $1 AND tag = $2)`,
      [customerId, tag],
    );
    return affected;
  }

  /** Cross-tenant on purpose (staging clean-up): which of `keys` a build holds as its binary or its notes. */
  async ownedObjectKeys(keys: readonly string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const result = await sql(
      this.manager,
      `SELECT object_key AS key FROM firmware.build WHERE object_key = ANY($1::text[])
       UNION SELECT notes_object_key FROM firmware.build WHERE notes_object_key = ANY($1::text[])`,
      [[...keys]],
    );
    return result.rows.map((row) => String(row.key));
  }

  /** Cross-tenant on purpose (admin customer list): builds, bytes stored (binaries and notes) and distinct build tags per customer. */
  async countsByCustomer(customerIds: readonly CustomerId[]): Promise<Map<CustomerId, { builds: number; storedBytes: number; tags: string[] }>> {
    const result = new Map<CustomerId, { builds: number; storedBytes: number; tags: string[] }>();
    if (customerIds.length === 0) return result;
    const ids = [...customerIds];
    const builds = await sql(
      this.manager,
      `SELECT customer_id, count(*) AS n, COALESCE(SUM(size_bytes + COALESCE(notes_size_bytes, 0)), 0) AS stored_bytes
       FROM firmware.build WHERE customer_id = ANY($1::uuid[]) GROUP BY customer_id`,
      [ids],
    );
    for (const row of builds.rows) {
      result.set(String(row.customer_id) as CustomerId, { builds: Number(row.n), storedBytes: Number(row.stored_bytes), tags: [] });
    }
    const tags = await sql(
      this.manager,
      `SELECT DISTINCT customer_id, tag FROM firmware.build_tag WHERE customer_id = ANY($1::uuid[]) ORDER BY customer_id, tag`,
      [ids],
    );
    for (const row of tags.rows) {
      const id = String(row.customer_id) as CustomerId;
      const entry = result.get(id) ?? { builds: 0, storedBytes: 0, tags: [] };
      entry.tags.push(String(row.tag));
      result.set(id, entry);
    }
    return result;
  }

  /** Cross-tenant on purpose (customer deletion): every stored file of the customer's builds, binaries and notes. */
  async objectKeysOfCustomer(customerId: CustomerId): Promise<string[]> {
    const rows = await sql(this.manager, `SELECT object_key, notes_object_key FROM firmware.build WHERE customer_id = $1`, [customerId]);
    return rows.rows.flatMap((row) => [String(row.object_key), ...(row.notes_object_key ? [String(row.notes_object_key)] : [])]);
  }

  /** Customer deletion: every row of the customer in the firmware schema (tags, pending tag changes, builds); rows removed. */
  async deleteCustomerRows(customerId: CustomerId): Promise<number> {
    let rows = 0;
    for (const table of ['build_tag', 'tag_sync_op', 'tag_sync_lease', 'build']) {
      rows += (await sql(this.manager, `DELETE FROM firmware.${table} WHERE customer_id = $1`, [customerId])).affected;
    }
    return rows;
  }
}

export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Maps a row (column names, driver types) to the entity. */
export function fromRow(row: Row): BuildEntity {
  const entity = new BuildEntity();
  entity.id = String(row.id);
  entity.customerId = String(row.customer_id) as CustomerId;
  entity.hwName = String(row.hw_name);
  entity.hwVersion = String(row.hw_version);
  entity.fwName = String(row.fw_name);
  entity.fwVersion = String(row.fw_version);
  entity.fwType = String(row.fw_type) as FwType;
  entity.versionKey = toBuffer(row.version_key);
  entity.buildDate = toDate(row.build_date);
  entity.generalRelease = row.general_release === true;
  entity.tagFilterDisabled = row.tag_filter_disabled === true;
  entity.status = row.status === 'withdrawn' ? 'withdrawn' : 'active';
  entity.objectKey = String(row.object_key);
  entity.sizeBytes = Number(row.size_bytes);
  entity.sha256 = String(row.sha256);
  entity.whatString = row.what_string === null || row.what_string === undefined ? null : String(row.what_string);
  entity.notes =
    row.notes_object_key === null || row.notes_object_key === undefined
      ? null
      : { objectKey: String(row.notes_object_key), sizeBytes: Number(row.notes_size_bytes), sha256: String(row.notes_sha256) };
  entity.uploadedAt = toDate(row.uploaded_at);
  entity.uploadedBy = String(row.uploaded_by);
  entity.updatedAt = toDate(row.updated_at);
  entity.revision = Number(row.revision);
  entity.downloadCount = Number(row.download_count ?? 0);
  entity.notesDownloadCount = Number(row.notes_download_count ?? 0);
  entity.tags = Array.isArray(row.tags) ? (row.tags as unknown[]).map(String).sort(byCodeUnit) : [];
  return entity;
}
