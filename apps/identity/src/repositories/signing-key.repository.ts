import { SigningKeyEntity } from '../entities/signing-key.entity.js';
import { BaseRepository } from '@app/infra';

export interface NewSigningKey {
  readonly kid: string;
  readonly publicX: string;
  readonly privatePkcs8: string;
  readonly at: Date;
}

export class SigningKeyRepository extends BaseRepository {
  /** Published keys, newest first (the first one signs). */
  listActive(): Promise<SigningKeyEntity[]> {
    return this.manager.find(SigningKeyEntity, { where: { active: true }, order: { createdAt: 'DESC', kid: 'ASC' } });
  }

  /** Keys taken out of service (active false), newest first. */
  listRetired(): Promise<SigningKeyEntity[]> {
    return this.manager.find(SigningKeyEntity, { where: { active: false }, order: { createdAt: 'DESC', kid: 'ASC' } });
  }

  async insert(key: NewSigningKey): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .insert()
      .into(SigningKeyEntity)
      .values({ kid: key.kid, alg: 'EdDSA', publicX: key.publicX, privatePkcs8: key.privatePkcs8, active: true, createdAt: key.at })
      .execute();
  }
}
