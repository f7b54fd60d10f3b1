import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The identity app owns the `identity` schema: customers, users, memberships, signing keys,
 * API token records, sessions, refresh tokens and login challenges. SQL valid on
 * PostgreSQL 15 and PGlite (PostgreSQL 18); gen_random_uuid() is built in on both.
 */
export class IdentitySchema1763700000000 implements MigrationInterface {
  name = 'IdentitySchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS identity`);
    await queryRunner.query(`COMMENT ON SCHEMA identity IS 'identity: customers, users, memberships, keys, tokens, sessions, login challenges'`);

    await queryRunner.query(`
      CREATE TABLE identity.customers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        domain text NOT NULL,
        name text NOT NULL,
        status text NOT NULL DEFAULT 'active',
        cors_origins text[] NOT NULL DEFAULT '{}',
        is_sandbox boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT customers_domain_key UNIQUE (domain),
        CONSTRAINT customers_domain_lower CHECK (domain = lower(domain)),
        CONSTRAINT customers_status_check CHECK (status IN ('active', 'suspended'))
      )`);

    await queryRunner.query(`
      CREATE TABLE identity.users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        disabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_login_at timestamptz NULL,
        CONSTRAINT users_email_key UNIQUE (email),
        CONSTRAINT users_email_lower CHECK (email = lower(email))
      )`);

    await queryRunner.query(`
      CREATE TABLE identity.memberships (
        customer_id uuid NOT NULL REFERENCES identity.customers (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
        role text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT memberships_pkey PRIMARY KEY (customer_id, user_id),
        CONSTRAINT memberships_role_check CHECK (role IN ('viewer', 'editor', 'owner'))
      )`);
    await queryRunner.query(`CREATE INDEX memberships_user_idx ON identity.memberships (user_id)`);

    await queryRunner.query(`
      CREATE TABLE identity.signing_keys (
        kid text PRIMARY KEY,
        alg text NOT NULL DEFAULT 'EdDSA',
        public_x text NOT NULL,
        private_pkcs8 text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE identity.secrets (
        name text PRIMARY KEY,
        value bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE identity.api_tokens (
        id uuid PRIMARY KEY,
        customer_id uuid NOT NULL REFERENCES identity.customers (id) ON DELETE CASCADE,
        created_by uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
        name text NOT NULL,
        bundle text NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL,
        last_used_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX api_tokens_customer_idx ON identity.api_tokens (customer_id, created_at)`);
    await queryRunner.query(`CREATE INDEX api_tokens_created_by_idx ON identity.api_tokens (created_by)`);

    await queryRunner.query(`
      CREATE TABLE identity.sessions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
        customer_id uuid NOT NULL REFERENCES identity.customers (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL,
        revoked_reason text NULL
      )`);
    await queryRunner.query(`CREATE INDEX sessions_user_idx ON identity.sessions (user_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE identity.refresh_tokens (
        token_hash text PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES identity.sessions (id) ON DELETE CASCADE,
        issued_at timestamptz NOT NULL DEFAULT now(),
        rotated_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX refresh_tokens_session_idx ON identity.refresh_tokens (session_id)`);

    await queryRunner.query(`
      CREATE TABLE identity.login_challenges (
        id uuid PRIMARY KEY,
        email text NOT NULL,
        user_id uuid NULL REFERENCES identity.users (id) ON DELETE CASCADE,
        code_salt text NOT NULL,
        code_hash text NOT NULL,
        link_hash text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX login_challenges_email_idx ON identity.login_challenges (email, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS identity.login_challenges`);
    await queryRunner.query(`DROP TABLE IF EXISTS identity.refresh_tokens`);
    await queryRunner.query(`DROP TABLE IF EXISTS identity.sessions`);
    await queryRunner.query(`DROP TABLE IF EXISTS identity.api_tokens`);
    await queryRunner.query(`DROP TABLE IF EXISTS identity.secrets`);
    await queryRunner.query(`DROP TABLE IF EXISTS identity.signing_keys`);
    await queryRunner.query(`DROP TABLE IF EXISTS identity.memberships`);
    await queryRunner.query(`DROP TABLE IF EXISTS identity.users`);
    await queryRunner.query(`DROP TABLE IF EXISTS identity.customers`);
    await queryRunner.query(`COMMENT ON SCHEMA identity IS NULL`);
  }
}
