import type { RolloutOutcome } from '@app/contracts';
import { sql, type Tenant, toDate, toInt, toNullableDate } from '@app/infra';
import type { EntityManager } from 'typeorm';
import { indexesOnly, type ProductLine, sharingTag } from './device-rollout.repository.js';
import { SqlParams } from './device-list.repository.js';

/** A rollout's audience: known, active devices on the line (or never checked in), sharing one of `tags` and one of `extraTags` when set. */
export interface RolloutAudience {
  readonly line: ProductLine;
  readonly tags: readonly string[] | null;
  readonly extraTags: readonly string[] | null;
}

/** The outcome rules' parameters (docs/api.md "Rollouts", "Outcomes"). */
export interface OutcomeRules {
  readonly rolloutId: string;
  readonly versionKey: Buffer;
  readonly graceMinutes: number;
  readonly silentAfterMinutes: number;
  readonly now: Date;
}

/** A first offer of a build under a rollout, from a sighting. */
export interface OfferRow {
  readonly rolloutId: string;
  readonly hwid: string;
  readonly buildId: string;
  readonly versionKey: string;
  readonly stage: number;
  readonly at: Date;
}

export interface OfferedDevice {
  readonly hwid: string;
  readonly stage: number;
  readonly outcome: RolloutOutcome;
  readonly offeredAt: Date;
  readonly updatedAt: Date | null;
  readonly lastFwVersion: string | null;
  readonly lastSeenAt: Date | null;
  readonly reportedReason: string | null;
}

/**
 * The outcome of offer `o` of device `d` (LEFT JOIN: a device gone counts as silent once the
 * time has passed), first rule that holds: failed (its report) > rolled_back (its report, or it
 * reported the build's version or newer and now an older one) > updated (reports a version at
 * least the build's, or its report said installed) > silent (not seen for silent_after since the
 * offer) > not_installed (seen after offered_at + grace, still older) > pending.
 */
function outcomeSql(q: SqlParams, rules: OutcomeRules): string {
  const now = q.add(rules.now);
  const grace = q.add(rules.graceMinutes);
  const silent = q.add(rules.silentAfterMinutes);
  return `CASE
      WHEN o.reported_outcome = 'failed' THEN 'failed'
      WHEN o.reported_outcome = 'rolled_back' OR (o.updated_at IS NOT NULL AND d.last_version_key < o.version_key) THEN 'rolled_back'
      WHEN d.last_version_key >= o.version_key OR o.reported_outcome = 'installed' THEN 'updated'
      WHEN o.offered_at < ${now}::timestamptz - ${silent} * interval '1 minute'
        AND coalesce(d.last_seen_at, o.offered_at) < ${now}::timestamptz - ${silent} * interval '1 minute' THEN 'silent'
      WHEN d.last_seen_at > o.offered_at + ${grace} * interval '1 minute' THEN 'not_installed'
      ELSE 'pending' END`;
}

/**
 * The registry's side of staged rollouts: the audience by position (stage thresholds), the
 * first offers (rollout_offer, from the batched sightings), the outcomes computed over a
 * rollout's offers joined with their devices (rollout_offer_pkey, never a fleet scan), the device
 * reports recorded against offers, and the devices' version history.
 */
export class RolloutOfferRepository {
  constructor(private readonly manager: EntityManager) {}

  /**
   * The audience by position for a rollout offset: devices per position (at most 10,000 rows),
   * one pass over the audience through device_bucket_idx. In a transaction (see indexesOnly).
   */
  async positions(query: Tenant<RolloutAudience & { offset: number }>): Promise<Map<number, number>> {
    await indexesOnly(this.manager);
    const q = new SqlParams(query.customerId);
    const offset = q.add(query.offset);
    const { rows } = await sql(
      this.manager,
      `SELECT (d.rollout_bucket - ${offset}::int + 10000) % 10000 AS pos, count(*) AS n FROM registry.device d
          WHERE d.customer_id = $1 AND d.status = 'active'
            AND ((d.last_hw_name = ${q.add(query.line.hwName)} AND d.last_hw_version = ${q.add(query.line.hwVersion)} AND d.last_fw_name = ${q.add(query.line.fwName)})
                 OR d.last_hw_name IS NULL)${sharingTag(q, query.tags)}${sharingTag(q, query.extraTags)}
          GROUP BY 1`,
      q.values,
    );
    return new Map(rows.map((row) => [toInt(row.pos), toInt(row.n)]));
  }

  /**
   * First offers win (ON CONFLICT DO NOTHING): one statement for the batch. A device's report of
   * the build that arrived before its offer (the report follows the check at once; the offer
   * travels with the batched sighting, seconds later) is taken over from device_report: the
   * latest one, through device_report_pkey (customer_id, hwid).
   */
  async recordOffers(batch: Tenant<{ offers: readonly OfferRow[] }>): Promise<number> {
    if (batch.offers.length === 0) return 0;
    const { rows } = await sql(
      this.manager,
      `WITH added AS (
           INSERT INTO registry.rollout_offer (customer_id, rollout_id, hwid, build_id, version_key, stage, offered_at, reported_outcome, reported_reason, reported_at)
           SELECT $1, (r->>0)::uuid, r->>1, (r->>2)::uuid, decode(r->>3, 'hex'), (r->>4)::smallint, (r->>5)::timestamptz,
                  rep.outcome, left(rep.reason, 1000), rep.reported_at
             FROM jsonb_array_elements($2::jsonb) AS r
             LEFT JOIN LATERAL (
               SELECT x.outcome, x.reason, x.reported_at FROM registry.device_report x
                WHERE x.customer_id = $1 AND x.hwid = r->>1 AND x.build_id = (r->>2)::uuid
                ORDER BY x.reported_at DESC LIMIT 1) rep ON true
           ON CONFLICT (rollout_id, hwid) DO NOTHING RETURNING 1)
         SELECT count(*) AS n FROM added`,
      [batch.customerId, JSON.stringify(batch.offers.map((o) => [o.rolloutId, o.hwid, o.buildId, o.versionKey, o.stage, o.at.toISOString()]))],
    );
    return toInt(rows[0]?.n ?? 0);
  }

  /** Devices offered and outcome counts per stage of a rollout. */
  async progress(query: Tenant<OutcomeRules>): Promise<{ stage: number; outcome: RolloutOutcome; devices: number }[]> {
    const q = new SqlParams(query.customerId);
    const rollout = q.add(query.rolloutId);
    const outcome = outcomeSql(q, query);
    const { rows } = await sql(
      this.manager,
      `SELECT o.stage, ${outcome} AS outcome, count(*) AS n
           FROM registry.rollout_offer o LEFT JOIN registry.device d ON d.customer_id = o.customer_id AND d.hwid = o.hwid
          WHERE o.rollout_id = ${rollout}::uuid AND o.customer_id = $1 GROUP BY 1, 2`,
      q.values,
    );
    return rows.map((row) => ({ stage: toInt(row.stage), outcome: row.outcome as RolloutOutcome, devices: toInt(row.n) }));
  }

  /** A page of a rollout's offered devices with their outcome, by stage then HW id; `total` matches the filters. */
  async devices(
    query: Tenant<OutcomeRules & { outcome: RolloutOutcome | null; stage: number | null; limit: number; offset: number }>,
  ): Promise<{ items: OfferedDevice[]; total: number }> {
    const q = new SqlParams(query.customerId);
    const rollout = q.add(query.rolloutId);
    const outcome = outcomeSql(q, query);
    const stage = query.stage === null ? '' : ` AND o.stage = ${q.add(query.stage)}`;
    const columns = `o.hwid, o.stage, ${outcome} AS outcome, o.offered_at, o.updated_at, d.last_fw_version, d.last_seen_at, o.reported_reason`;
    const device = 'LEFT JOIN registry.device d ON d.customer_id = o.customer_id AND d.hwid = o.hwid';
    // Without an outcome filter the page is cut from the offers alone, and only its rows are
    // joined to their devices (bench:rollouts: the outcome of every offer took seconds at 150,000).
    const { rows } =
      query.outcome === null
        ? await sql(
            this.manager,
            `WITH page AS (
                 SELECT o.*, count(*) OVER () AS total FROM registry.rollout_offer o
                  WHERE o.rollout_id = ${rollout}::uuid AND o.customer_id = $1${stage}
                  ORDER BY o.stage, o.hwid LIMIT ${q.add(query.limit)} OFFSET ${q.add(query.offset)})
               SELECT ${columns}, o.total FROM page o ${device} ORDER BY o.stage, o.hwid`,
            q.values,
          )
        : await sql(
            this.manager,
            `SELECT x.*, count(*) OVER () AS total FROM (
                 SELECT ${columns} FROM registry.rollout_offer o ${device}
                  WHERE o.rollout_id = ${rollout}::uuid AND o.customer_id = $1${stage}) x
              WHERE x.outcome = ${q.add(query.outcome)}
              ORDER BY x.stage, x.hwid LIMIT ${q.add(query.limit)} OFFSET ${q.add(query.offset)}`,
            q.values,
          );
    return {
      total: toInt(rows[0]?.total ?? 0),
      items: rows.map((row) => ({
        hwid: String(row.hwid),
        stage: toInt(row.stage),
        outcome: row.outcome as RolloutOutcome,
        offeredAt: toDate(row.offered_at),
        updatedAt: toNullableDate(row.updated_at),
        lastFwVersion: typeof row.last_fw_version === 'string' ? row.last_fw_version : null,
        lastSeenAt: toNullableDate(row.last_seen_at),
        reportedReason: typeof row.reported_reason === 'string' ? row.reported_reason : null,
      })),
    };
  }

  /**
   * A device's own report of installing a build (device reports), recorded against its offers
   * of that build (every rollout of it); a later report replaces an earlier one. Returns the
   * offers changed (0: the device was never offered the build under a rollout).
   */
  async recordReport(
    report: Tenant<{ hwid: string; buildId: string; outcome: 'installed' | 'failed' | 'rolled_back'; reason: string | null; at: Date }>,
  ): Promise<number> {
    const { rows } = await sql(
      this.manager,
      `WITH changed AS (
           UPDATE registry.rollout_offer SET reported_outcome = $4, reported_reason = $5, reported_at = $6
            WHERE customer_id = $1 AND hwid = $2 AND build_id = $3::uuid AND (reported_at IS NULL OR reported_at <= $6) RETURNING 1)
         SELECT count(*) AS n FROM changed`,
      [report.customerId, report.hwid, report.buildId, report.outcome, report.reason === null ? null : report.reason.slice(0, 1000), report.at],
    );
    return toInt(rows[0]?.n ?? 0);
  }

  /** A device's version changes, newest first. */
  async history(query: Tenant<{ hwid: string; limit: number; offset: number }>) {
    const { rows } = await sql(
      this.manager,
      `SELECT fw_version, hw_name, hw_version, fw_name, seen_at FROM registry.device_history
          WHERE customer_id = $1 AND hwid = $2 ORDER BY seen_at DESC LIMIT $3 OFFSET $4`,
      [query.customerId, query.hwid, query.limit, query.offset],
    );
    return rows.map((row) => ({
      fwVersion: String(row.fw_version),
      hwName: typeof row.hw_name === 'string' ? row.hw_name : null,
      hwVersion: typeof row.hw_version === 'string' ? row.hw_version : null,
      fwName: typeof row.fw_name === 'string' ? row.fw_name : null,
      seenAt: toDate(row.seen_at),
    }));
  }

  /** Customer deletion: its offers and device history. Returns the rows deleted. */
  async deleteCustomerRows(customerId: Tenant['customerId']): Promise<number> {
    const { rows } = await sql(
      this.manager,
      `WITH offers AS (DELETE FROM registry.rollout_offer WHERE customer_id = $1 RETURNING 1),
              history AS (DELETE FROM registry.device_history WHERE customer_id = $1 RETURNING 1)
         SELECT (SELECT count(*) FROM offers) + (SELECT count(*) FROM history) AS n`,
      [customerId],
    );
    return toInt(rows[0]?.n ?? 0);
  }
}
