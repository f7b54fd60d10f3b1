import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer status `deleting`: the record of a deletion under way (DELETE /admin/customers). A
 * customer in this state is hidden (lookups answer unknown, its credentials fail) until every
 * app has erased its data; then the row goes. `down` turns unfinished deletions into
 * suspensions (the data is partly erased; an operator deletes them again after upgrading).
 */
export class IdentityCustomerDeleting1764500000000 implements MigrationInterface {
  name = 'IdentityCustomerDeleting1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE identity.customers DROP CONSTRAINT customers_status_check`);
    await queryRunner.query(`ALTER TABLE identity.customers ADD CONSTRAINT customers_status_check CHECK (status IN ('active', 'suspended', 'deleting'))`);
    await queryRunner.query(`CREATE INDEX customers_deleting_idx ON identity.customers (id) WHERE status = 'deleting'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX identity.customers_deleting_idx`);
    await queryRunner.query(`UPDATE identity.customers SET status = 'suspended' WHERE status = 'deleting'`);
    await queryRunner.query(`ALTER TABLE identity.customers DROP CONSTRAINT customers_status_check`);
    await queryRunner.query(`ALTER TABLE identity.customers ADD CONSTRAINT customers_status_check CHECK (status IN ('active', 'suspended'))`);
  }
}
