import type { CustomerId, HaltRule, RolloutHalt, RolloutState } from '@app/contracts';
import { sql, type Tenant, toDate, toInt, toNullableDate } from '@app/infra';
import type { EntityManager } from 'typeorm';
import type { RolloutRecord, StagePlan, StageStart } from '../domain/rollout.js';

const COLUMNS = `r.id, r.customer_id, r.build_id, r.state, r.stages, r.current_stage, r.stage_started_at, r.thresholds, r.stage_log, r.extra_tags,
  r.halt_rules, r.halt, r.complete_as_general_release, r.grace_minutes, r.silent_after_minutes, r.start_at, r.created_by, r.created_at, r.updated_at, r.revision`;

function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function toRecord(row: Record<string, unknown>): RolloutRecord {
  return {
    id: String(row.id),
    customerId: String(row.customer_id) as CustomerId,
    buildId: String(row.build_id),
    state: row.state as RolloutState,
    stages: json<StagePlan[]>(row.stages),
    currentStage: toInt(row.current_stage),
    stageStartedAt: toNullableDate(row.stage_started_at),
    thresholds: (row.thresholds as unknown[]).map(toInt),
    stageLog: json<StageStart[]>(row.stage_log),
    extraTags: row.extra_tags as string[],
    haltRules: json<HaltRule[]>(row.halt_rules),
    halt: row.halt === null || row.halt === undefined ? null : json<RolloutHalt>(row.halt),
    completeAsGeneralRelease: row.complete_as_general_release === true,
    graceMinutes: toInt(row.grace_minutes),
    silentAfterMinutes: toInt(row.silent_after_minutes),
    startAt: toNullableDate(row.start_at),
    createdBy: String(row.created_by),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    revision: toInt(row.revision),
  };
}

/** What a transition changes besides the state (and the revision, which always grows). */
export interface RolloutTransition {
  readonly state: RolloutState;
  readonly currentStage?: number;
  readonly stageStartedAt?: Date | null;
  readonly thresholds?: readonly number[];
  readonly stageLog?: readonly StageStart[];
  readonly halt?: RolloutHalt | null;
}

/** A rollout with its build's identity, for lists. */
export interface ListedRollout {
  readonly rollout: RolloutRecord;
  readonly build: { readonly hwName: string; readonly hwVersion: string; readonly fwName: string; readonly fwVersion: string };
}

/**
 * firmware.rollout: rollouts of builds (docs/api.md "Rollouts") and the evaluator's lease.
 * A transition is an UPDATE conditional on the revision read (null: someone else changed it).
 */
export class RolloutRepository {
  constructor(private readonly manager: EntityManager) {}

  /** Inserts a rollout; null when the build already has one that is not completed or aborted (rollout_open_build_idx). */
  async insert(rollout: Omit<RolloutRecord, 'createdAt' | 'updatedAt' | 'revision'>): Promise<RolloutRecord | null> {
    const { rows } = await sql(
      this.manager,
      `INSERT INTO firmware.rollout AS r (id, customer_id, build_id, state, stages, current_stage, stage_started_at, thresholds, stage_log, extra_tags,
            halt_rules, halt, complete_as_general_release, grace_minutes, silent_after_minutes, start_at, created_by)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::int[], $9::jsonb, $10::text[], $11::jsonb, $12::jsonb, $13, $14, $15, $16, $17)
         ON CONFLICT (build_id) WHERE state IN ('scheduled', 'running', 'paused', 'halted') DO NOTHING
         RETURNING ${COLUMNS}`,
      [
        rollout.id,
        rollout.customerId,
        rollout.buildId,
        rollout.state,
        JSON.stringify(rollout.stages),
        rollout.currentStage,
        rollout.stageStartedAt,
        [...rollout.thresholds],
        JSON.stringify(rollout.stageLog),
        [...rollout.extraTags],
        JSON.stringify(rollout.haltRules),
        rollout.halt === null ? null : JSON.stringify(rollout.halt),
        rollout.completeAsGeneralRelease,
        rollout.graceMinutes,
        rollout.silentAfterMinutes,
        rollout.startAt,
        rollout.createdBy,
      ],
    );
    return rows.length ? toRecord(rows[0]) : null;
  }

  /** The build's latest rollout. */
  async latestOfBuild(query: Tenant<{ buildId: string }>): Promise<RolloutRecord | null> {
    const { rows } = await sql(
      this.manager,
      `SELECT ${COLUMNS} FROM firmware.rollout r WHERE r.customer_id = $1 AND r.build_id = $2 ORDER BY r.created_at DESC, r.id LIMIT 1`,
      [query.customerId, query.buildId],
    );
    return rows.length ? toRecord(rows[0]) : null;
  }

  /** The customer's rollouts that decide who gets their builds (not completed), for the update-check index. */
  async governing(query: Tenant): Promise<RolloutRecord[]> {
    const { rows } = await sql(
      this.manager,
      `SELECT DISTINCT ON (r.build_id) ${COLUMNS} FROM firmware.rollout r WHERE r.customer_id = $1 ORDER BY r.build_id, r.created_at DESC, r.id`,
      [query.customerId],
    );
    return rows.map(toRecord).filter((r) => r.state !== 'completed');
  }

  async list(query: Tenant<{ state: RolloutState | null; limit: number; offset: number }>): Promise<ListedRollout[]> {
    const { rows } = await sql(
      this.manager,
      `SELECT ${COLUMNS}, b.hw_name, b.hw_version, b.fw_name, b.fw_version FROM firmware.rollout r JOIN firmware.build b ON b.id = r.build_id
          WHERE r.customer_id = $1 AND ($2::text IS NULL OR r.state = $2) ORDER BY r.created_at DESC, r.id LIMIT $3 OFFSET $4`,
      [query.customerId, query.state, query.limit, query.offset],
    );
    return rows.map((row) => ({
      rollout: toRecord(row),
      build: { hwName: String(row.hw_name), hwVersion: String(row.hw_version), fwName: String(row.fw_name), fwVersion: String(row.fw_version) },
    }));
  }

  /** Every customer's scheduled and running rollouts (cross-tenant: the evaluator), rollout_live_idx. */
  async live(): Promise<RolloutRecord[]> {
    const { rows } = await sql(this.manager, `SELECT ${COLUMNS} FROM firmware.rollout r WHERE r.state IN ('scheduled', 'running') ORDER BY r.created_at, r.id`);
    return rows.map(toRecord);
  }

  /** Applies a transition if the rollout is still at `revision`; the rollout after it, or null. */
  async transition(query: Tenant<{ id: string; revision: number; change: RolloutTransition }>): Promise<RolloutRecord | null> {
    const c = query.change;
    const { rows } = await sql(
      this.manager,
      `UPDATE firmware.rollout r SET state = $4, revision = r.revision + 1, updated_at = now(),
            current_stage = coalesce($5, r.current_stage),
            stage_started_at = CASE WHEN $6 THEN $7::timestamptz ELSE r.stage_started_at END,
            thresholds = coalesce($8::int[], r.thresholds),
            stage_log = coalesce($9::jsonb, r.stage_log),
            halt = CASE WHEN $10 THEN $11::jsonb ELSE r.halt END
          WHERE r.customer_id = $1 AND r.id = $2 AND r.revision = $3
          RETURNING ${COLUMNS}`,
      [
        query.customerId,
        query.id,
        query.revision,
        c.state,
        c.currentStage ?? null,
        c.stageStartedAt !== undefined,
        c.stageStartedAt ?? null,
        c.thresholds ? [...c.thresholds] : null,
        c.stageLog ? JSON.stringify(c.stageLog) : null,
        c.halt !== undefined,
        c.halt ? JSON.stringify(c.halt) : null,
      ],
    );
    return rows.length ? toRecord(rows[0]) : null;
  }

  /** Takes the evaluator's lease unless another owner holds an unexpired one. */
  async acquireLease(query: { owner: string; ttlMs: number }): Promise<boolean> {
    const { rows } = await sql(
      this.manager,
      `INSERT INTO firmware.rollout_evaluator_lease (name, owner, expires_at) VALUES ('evaluator', $1, now() + $2 * interval '1 millisecond')
         ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
           WHERE firmware.rollout_evaluator_lease.expires_at < now() OR firmware.rollout_evaluator_lease.owner = EXCLUDED.owner
         RETURNING owner`,
      [query.owner, query.ttlMs],
    );
    return rows.length > 0;
  }

  async releaseLease(query: { owner: string }): Promise<void> {
    await sql(this.manager, `DELETE FROM firmware.rollout_evaluator_lease WHERE name = 'evaluator' AND owner = $1`, [query.owner]);
  }
}
