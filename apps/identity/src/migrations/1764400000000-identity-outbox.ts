import { outboxTableSql } from '@app/platform';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * identity.outbox: the audit entries and security events this app recorded, kept until the admin
 * app acknowledges them (OutboxRelay), so that none is lost while the admin app is down.
 */
export class IdentityOutbox1764400000000 implements MigrationInterface {
  name = 'IdentityOutbox1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of outboxTableSql('identity').up) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of outboxTableSql('identity').down) await queryRunner.query(sql);
  }
}
