import { BaseRepository, sql, type StoredEd25519Key, toDate, toNullableDate } from '@app/infra';

/** A key that signs update-check answers, with its schedule (migration 1765300000000). */
export interface UpdateSigningKey extends StoredEd25519Key {
  readonly createdAt: Date;
  readonly signsFrom: Date;
  readonly publishedUntil: Date | null;
}

const LOCK = 'firmware.update-signing-keys';

export class UpdateSigningKeyRepository extends BaseRepository {
  /** Serialises key creation and rotation across replicas (inside a transaction; released at its end). */
  async lock(): Promise<void> {
    await sql(this.manager, 'SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK]);
  }

  /** The keys published at `now`, the one that signs latest first. */
  async listPublished(now: Date): Promise<UpdateSigningKey[]> {
    const { rows } = await sql(
      this.manager,
      `SELECT kid, public_x, private_pkcs8, created_at, signs_from, published_until FROM firmware.update_signing_keys
        WHERE published_until IS NULL OR published_until > $1 ORDER BY signs_from DESC, created_at DESC, kid`,
      [now],
    );
    return rows.map((row) => ({
      kid: String(row.kid),
      publicX: String(row.public_x),
      privatePkcs8: String(row.private_pkcs8),
      createdAt: toDate(row.created_at),
      signsFrom: toDate(row.signs_from),
      publishedUntil: toNullableDate(row.published_until),
    }));
  }

  async insert(key: StoredEd25519Key, createdAt: Date, signsFrom: Date): Promise<void> {
    await sql(
      this.manager,
      `INSERT INTO firmware.update_signing_keys (kid, public_x, private_pkcs8, created_at, signs_from, published_until) VALUES ($1, $2, $3, $4, $5, NULL)`,
      [key.kid, key.publicX, key.privatePkcs8, createdAt, signsFrom],
    );
  }

  /** Every key published past `until` is published until then only (a rotation's overlap). */
  async publishUntil(until: Date): Promise<void> {
    await sql(this.manager, `UPDATE firmware.update_signing_keys SET published_until = $1 WHERE published_until IS NULL OR published_until > $1`, [until]);
  }
}
