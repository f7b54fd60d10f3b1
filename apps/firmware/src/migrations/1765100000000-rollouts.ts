import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Staged rollouts of builds (docs/api.md "Rollouts").
 *
 * rollout: one row per rollout; `stages` the plan ([{percent, min_devices, hold_minutes}]),
 * `thresholds` the position cut-off (0..10000) of every stage started so far (they only grow, so
 * a device once reached stays reached), `stage_log` when each stage started and the audience and
 * target it was cut for, `halt` the rule and figures that halted it. `revision` grows with every
 * transition: a transition is an UPDATE conditional on state and revision, so two evaluators or a
 * repeated request cannot apply one twice. rollout_open_build_idx: at most one rollout per build
 * that is not completed or aborted. rollout_open_idx: the evaluator's list of live rollouts.
 *
 * rollout_evaluator_lease: which process evaluates rollouts now (one at a time across replicas);
 * it expires by itself when that process dies.
 */
export class FirmwareRollouts1765100000000 implements MigrationInterface {
  name = 'FirmwareRollouts1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE firmware.rollout (
        id uuid NOT NULL,
        customer_id uuid NOT NULL,
        build_id uuid NOT NULL REFERENCES firmware.build (id) ON DELETE CASCADE,
        state text NOT NULL,
        stages jsonb NOT NULL,
        current_stage integer NOT NULL DEFAULT -1,
        stage_started_at timestamptz,
        thresholds integer[] NOT NULL DEFAULT '{}',
        stage_log jsonb NOT NULL DEFAULT '[]',
        extra_tags text[] NOT NULL DEFAULT '{}',
        halt_rules jsonb NOT NULL,
        halt jsonb,
        complete_as_general_release boolean NOT NULL DEFAULT false,
        grace_minutes integer NOT NULL,
        silent_after_minutes integer NOT NULL,
        start_at timestamptz,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        revision integer NOT NULL DEFAULT 0,
        CONSTRAINT rollout_pkey PRIMARY KEY (id),
        CONSTRAINT rollout_state_check CHECK (state IN ('scheduled', 'running', 'paused', 'halted', 'completed', 'aborted'))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX rollout_open_build_idx ON firmware.rollout (build_id) WHERE state IN ('scheduled', 'running', 'paused', 'halted')`,
    );
    await queryRunner.query(`CREATE INDEX rollout_customer_idx ON firmware.rollout (customer_id, created_at DESC, id)`);
    await queryRunner.query(`CREATE INDEX rollout_live_idx ON firmware.rollout (state) WHERE state IN ('scheduled', 'running')`);
    await queryRunner.query(`
      CREATE TABLE firmware.rollout_evaluator_lease (
        name text NOT NULL,
        owner text NOT NULL,
        expires_at timestamptz NOT NULL,
        CONSTRAINT rollout_evaluator_lease_pkey PRIMARY KEY (name)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE firmware.rollout_evaluator_lease`);
    await queryRunner.query(`DROP TABLE firmware.rollout`);
  }
}
