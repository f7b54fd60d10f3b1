import { BaseRepository, sql } from '@app/infra';

export class LockRepository extends BaseRepository {
  /**
   * A transaction-scoped advisory lock: replicas doing the same one-time work (key
   * generation, start-up provisioning) or counting the same limit take turns. Only
   * meaningful inside a transaction; released at commit or rollback.
   */
  async lockForTransaction(name: string): Promise<void> {
    await sql(this.manager, 'SELECT pg_advisory_xact_lock(hashtext($1))', [name]);
  }
}
