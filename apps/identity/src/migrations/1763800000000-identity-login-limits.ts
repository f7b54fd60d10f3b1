import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Login limits and the sandbox's public tokens:
 * - `login_attempts`: one row per POST /auth/login (kind `login`) and per code verification or
 *   magic-link confirmation (kind `verify`), by client address and email, so that the per-IP and
 *   per-address limits hold across replicas (rows older than a day are deleted hourly);
 * - `sandbox_tokens`: the public sandbox tokens (read-only, uploader, full) shown on /docs. They
 *   are the only tokens whose value is kept: they are public by design.
 */
export class IdentityLoginLimits1763800000000 implements MigrationInterface {
  name = 'IdentityLoginLimits1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE identity.login_attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind text NOT NULL,
        ip text NOT NULL,
        email text NOT NULL,
        at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT login_attempts_kind_check CHECK (kind IN ('login', 'verify'))
      )`);
    await queryRunner.query(`CREATE INDEX login_attempts_ip_idx ON identity.login_attempts (kind, ip, at)`);
    await queryRunner.query(`CREATE INDEX login_attempts_email_idx ON identity.login_attempts (kind, email, at)`);
    await queryRunner.query(`CREATE INDEX login_challenges_created_idx ON identity.login_challenges (created_at)`);
    await queryRunner.query(`CREATE INDEX sessions_customer_idx ON identity.sessions (customer_id) WHERE revoked_at IS NULL`);

    await queryRunner.query(`
      CREATE TABLE identity.sandbox_tokens (
        bundle text PRIMARY KEY,
        token_id uuid NOT NULL REFERENCES identity.api_tokens (id) ON DELETE CASCADE,
        token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT sandbox_tokens_bundle_check CHECK (bundle IN ('read-only', 'uploader', 'full'))
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS identity.sandbox_tokens`);
    await queryRunner.query(`DROP INDEX IF EXISTS identity.sessions_customer_idx`);
    await queryRunner.query(`DROP INDEX IF EXISTS identity.login_challenges_created_idx`);
    await queryRunner.query(`DROP TABLE IF EXISTS identity.login_attempts`);
  }
}
