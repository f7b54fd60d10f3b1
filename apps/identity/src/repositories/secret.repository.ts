import { SecretEntity } from '../entities/secret.entity.js';
import { BaseRepository, sql } from '@app/infra';

export class SecretRepository extends BaseRepository {
  /** The named secret; the first caller's `candidate` wins when several replicas race. */
  async getOrCreate(name: string, candidate: Buffer, at: Date): Promise<Buffer> {
    await sql(this.manager, `INSERT INTO identity.secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [name, candidate, at]);
    const row = await this.manager.findOneByOrFail(SecretEntity, { name });
    return Buffer.from(row.value);
  }
}
