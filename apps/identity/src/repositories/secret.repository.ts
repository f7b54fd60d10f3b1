import { SecretEntity } from '../entities/secret.entity.js';
import { BaseRepository } from '@app/infra';

export class SecretRepository extends BaseRepository {
  /** The named secret; the first caller's `candidate` wins when several replicas race. */
  async getOrCreate(name: string, candidate: Buffer, at: Date): Promise<Buffer> {
    await this.manager.createQueryBuilder().insert().into(SecretEntity).values({ name, value: candidate, createdAt: at }).orIgnore().execute();
    const row = await this.manager.findOneByOrFail(SecretEntity, { name });
    return Buffer.from(row.value);
  }
}
