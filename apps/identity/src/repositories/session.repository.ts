import type { CustomerId } from '@app/contracts';
import type { CustomerStatus } from '../domain/records.js';
import { CustomerEntity } from '../entities/customer.entity.js';
import { RefreshTokenEntity } from '../entities/refresh-token.entity.js';
import { SessionEntity } from '../entities/session.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import { BaseRepository, toDate, toNullableDate } from '@app/infra';

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
  readonly customerStatus: CustomerStatus;
  readonly userId: string;
  readonly customerId: CustomerId;
}

/** A refresh token with the state of its session, its person and its customer. */
export interface RefreshTokenState extends SessionCredentialState {
  readonly tokenHash: string;
  readonly sessionId: string;
  readonly rotatedAt: Date | null;
  readonly createdAt: Date;
  readonly email: string;
  readonly customerDomain: string;
}

interface SessionStateRow {
  revoked_at: unknown;
  expires_at: unknown;
  last_used_at: unknown;
  user_disabled: boolean;
  customer_status: CustomerStatus;
  user_id: string;
  customer_id: string;
}

function toSessionState(row: SessionStateRow): SessionCredentialState {
  return {
    revokedAt: toNullableDate(row.revoked_at),
    expiresAt: toDate(row.expires_at),
    lastUsedAt: toDate(row.last_used_at),
    userDisabled: row.user_disabled === true,
    customerStatus: row.customer_status,
    userId: row.user_id,
    customerId: row.customer_id as CustomerId,
  };
}

const SESSION_STATE_COLUMNS = [
  's.revoked_at AS revoked_at',
  's.expires_at AS expires_at',
  's.last_used_at AS last_used_at',
  'u.disabled AS user_disabled',
  'c.status AS customer_status',
  's.user_id AS user_id',
  's.customer_id AS customer_id',
];

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
      .select(SESSION_STATE_COLUMNS)
      .where('s.id = :id', { id })
      .getRawOne<SessionStateRow>();
    return row ? toSessionState(row) : null;
  }

  /** The refresh token with this hash, rotated or not, with its session's state. */
  async findRefreshToken(tokenHash: string): Promise<RefreshTokenState | null> {
    const row = await this.manager
      .createQueryBuilder(RefreshTokenEntity, 'r')
      .innerJoin(SessionEntity, 's', 's.id = r.session_id')
      .innerJoin(UserEntity, 'u', 'u.id = s.user_id')
      .innerJoin(CustomerEntity, 'c', 'c.id = s.customer_id')
      .select([
        ...SESSION_STATE_COLUMNS,
        'r.token_hash AS token_hash',
        'r.session_id AS session_id',
        'r.rotated_at AS rotated_at',
        's.created_at AS created_at',
        'u.email AS email',
        'c.domain AS customer_domain',
      ])
      .where('r.token_hash = :tokenHash', { tokenHash })
      .getRawOne<
        SessionStateRow & { token_hash: string; session_id: string; rotated_at: unknown; created_at: unknown; email: string; customer_domain: string }
      >();
    if (!row) return null;
    return {
      ...toSessionState(row),
      tokenHash: row.token_hash,
      sessionId: row.session_id,
      rotatedAt: toNullableDate(row.rotated_at),
      createdAt: toDate(row.created_at),
      email: row.email,
      customerDomain: row.customer_domain,
    };
  }

  /**
   * Rotation (call inside a transaction): marks the presented token rotated unless another
   * request already did, stores its successor and notes the session's use. false when this
   * call lost the race (the token was rotated meanwhile).
   */
  async rotate(input: { tokenHash: string; nextHash: string; sessionId: string; at: Date }): Promise<boolean> {
    const marked = await this.manager
      .createQueryBuilder()
      .update(RefreshTokenEntity)
      .set({ rotatedAt: input.at })
      .where('token_hash = :tokenHash AND rotated_at IS NULL', { tokenHash: input.tokenHash })
      .execute();
    if ((marked.affected ?? 0) === 0) return false;
    await this.manager
      .createQueryBuilder()
      .insert()
      .into(RefreshTokenEntity)
      .values({ tokenHash: input.nextHash, sessionId: input.sessionId, issuedAt: input.at, rotatedAt: null })
      .orIgnore()
      .execute();
    await this.touch(input.sessionId, input.at);
    return true;
  }

  /** Notes activity (the 12-hour idle limit counts from here). */
  async touch(sessionId: string, at: Date): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .update(SessionEntity)
      .set({ lastUsedAt: () => 'GREATEST(last_used_at, :at)' })
      .setParameter('at', at)
      .where('id = :sessionId', { sessionId })
      .execute();
  }

  /** POST /auth/switch. */
  async setCustomer(sessionId: string, customerId: CustomerId): Promise<void> {
    await this.manager.createQueryBuilder().update(SessionEntity).set({ customerId }).where('id = :sessionId', { sessionId }).execute();
  }

  /** Unended sessions of a person (optionally only those on one customer). */
  async openIds(input: { userId: string; customerId?: CustomerId; now: Date }): Promise<string[]> {
    const query = this.manager
      .createQueryBuilder(SessionEntity, 's')
      .select('s.id', 'id')
      .where('s.user_id = :userId AND s.revoked_at IS NULL AND s.expires_at > :now', { userId: input.userId, now: input.now });
    if (input.customerId) query.andWhere('s.customer_id = :customerId', { customerId: input.customerId });
    return (await query.getRawMany<{ id: string }>()).map((r) => r.id);
  }

  /** Unended sessions on a customer (any person). */
  async openIdsOnCustomer(customerId: CustomerId, now: Date): Promise<string[]> {
    const rows = await this.manager
      .createQueryBuilder(SessionEntity, 's')
      .select('s.id', 'id')
      .where('s.customer_id = :customerId AND s.revoked_at IS NULL AND s.expires_at > :now', { customerId, now })
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  /**
   * Ends every open session of a person and/or on a customer in one statement (user disabled,
   * member removed, customer suspended); answers the ids it ended.
   */
  async revokeOpen(input: { userId?: string; customerId?: CustomerId; at: Date; reason: string }): Promise<string[]> {
    if (!input.userId && !input.customerId) throw new Error('revokeOpen needs a user or a customer');
    const query = this.manager
      .createQueryBuilder()
      .update(SessionEntity)
      .set({ revokedAt: input.at, revokedReason: input.reason })
      .where('revoked_at IS NULL AND expires_at > :at', { at: input.at });
    if (input.userId) query.andWhere('user_id = :userId', { userId: input.userId });
    if (input.customerId) query.andWhere('customer_id = :customerId', { customerId: input.customerId });
    const result = await query.returning(['id']).execute();
    return ((Array.isArray(result.raw) ? result.raw : []) as Array<{ id: string }>).map((r) => r.id);
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
