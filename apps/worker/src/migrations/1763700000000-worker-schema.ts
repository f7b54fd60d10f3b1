import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The worker owns the `worker` schema; it holds no tables yet (jobs live in Redis or in process). */
export class WorkerSchema1763700000000 implements MigrationInterface {
  name = 'WorkerSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`COMMENT ON SCHEMA worker IS 'background work: no tables yet'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`COMMENT ON SCHEMA worker IS NULL`);
  }
}
