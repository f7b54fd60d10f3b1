import { SigningKeyEntity } from '../entities/signing-key.entity.js';
import { BaseRepository, sql } from '@app/infra';

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
    await sql(
      this.manager,
      `INSERT INTO identity.signing_keys (kid, alg, public_x, private_pkcs8, active, created_at) VALUES ($1, 'EdDSA', $2, $3, true, $4)`,
      [key.kid, key.publicX, key.privatePkcs8, key.at],
    );
  }
}
