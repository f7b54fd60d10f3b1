import type { CustomerId } from '@app/contracts';
import { CustomerEntity } from '../entities/customer.entity.js';
import { RefreshTokenEntity } from '../entities/refresh-token.entity.js';
import { SessionEntity } from '../entities/session.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import { BaseRepository, toDate, toNullableDate } from './base.repository.js';

export interface NewSession {
  readonly id: string;
  readonly userId: string;
  readonly customerId: CustomerId;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  /** SHA-256 of the first refresh token. */
  readonly refreshTokenHash: string;
}

export interface SessionCredentialState {
  readonly revokedAt: Date | null;
  readonly expiresAt: Date;
  readonly lastUsedAt: Date;
  readonly userDisabled: boolean;
  readonly customerStatus: 'active' | 'suspended';
}

export class SessionRepository extends BaseRepository {
  /** Creates the session with its first refresh token (call inside a transaction). */
  async create(session: NewSession): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .insert()
      .into(SessionEntity)
      .values({
        id: session.id,
        userId: session.userId,
        customerId: session.customerId,
        createdAt: session.createdAt,
        lastUsedAt: session.createdAt,
        expiresAt: session.expiresAt,
        revokedAt: null,
        revokedReason: null,
      })
      .execute();
    await this.manager
      .createQueryBuilder()
      .insert()
      .into(RefreshTokenEntity)
      .values({ tokenHash: session.refreshTokenHash, sessionId: session.id, issuedAt: session.createdAt, rotatedAt: null })
      .execute();
  }

  findById(id: string): Promise<SessionEntity | null> {
    return this.manager.findOneBy(SessionEntity, { id });
  }

  async findCredentialState(id: string): Promise<SessionCredentialState | null> {
    const row = await this.manager
      .createQueryBuilder(SessionEntity, 's')
      .innerJoin(UserEntity, 'u', 'u.id = s.user_id')
      .innerJoin(CustomerEntity, 'c', 'c.id = s.customer_id')
      .select(['s.revoked_at AS revoked_at', 's.expires_at AS expires_at', 's.last_used_at AS last_used_at', 'u.disabled AS user_disabled', 'c.status AS customer_status'])
      .where('s.id = :id', { id })
      .getRawOne<{ revoked_at: unknown; expires_at: unknown; last_used_at: unknown; user_disabled: boolean; customer_status: 'active' | 'suspended' }>();
    if (!row) return null;
    return {
      revokedAt: toNullableDate(row.revoked_at),
      expiresAt: toDate(row.expires_at),
      lastUsedAt: toDate(row.last_used_at),
      userDisabled: row.user_disabled === true,
      customerStatus: row.customer_status,
    };
  }

  /** Ends a session (logout, refresh reuse, member removal); true when this call ended it. */
  async revoke(input: { id: string; at: Date; reason: string }): Promise<boolean> {
    const result = await this.manager
      .createQueryBuilder()
      .update(SessionEntity)
      .set({ revokedAt: input.at, revokedReason: input.reason })
      .where('id = :id AND revoked_at IS NULL', { id: input.id })
      .execute();
    return (result.affected ?? 0) > 0;
  }
}
