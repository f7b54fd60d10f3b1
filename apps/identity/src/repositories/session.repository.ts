import type { CustomerId } from '@app/contracts';
import type { CustomerStatus } from '../domain/records.js';
import { SessionEntity } from '../entities/session.entity.js';
import { BaseRepository, type Row, sql, type Tenant, toDate, toNullableDate } from '@app/infra';

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

/** A session (s) with its person (u) and customer (c), as toSessionState reads them. */
const SESSION_STATE = `s.revoked_at, s.expires_at, s.last_used_at, u.disabled AS user_disabled, c.status AS customer_status, s.user_id, s.customer_id
   FROM identity.sessions s
   JOIN identity.users u ON u.id = s.user_id
   JOIN identity.customers c ON c.id = s.customer_id`;

function toSessionState(row: Row): SessionCredentialState {
  return {
    revokedAt: toNullableDate(row.revoked_at),
    expiresAt: toDate(row.expires_at),
    lastUsedAt: toDate(row.last_used_at),
    userDisabled: row.user_disabled === true,
    customerStatus: row.customer_status as CustomerStatus,
    userId: String(row.user_id),
    customerId: row.customer_id as CustomerId,
  };
}

export class SessionRepository extends BaseRepository {
  /** Creates the session with its first refresh token (call inside a transaction). */
  async create(session: Tenant<NewSession>): Promise<void> {
    await sql(
      this.manager,
      `INSERT INTO identity.sessions (id, user_id, customer_id, created_at, last_used_at, expires_at, revoked_at, revoked_reason)
       VALUES ($1, $2, $3, $4, $4, $5, NULL, NULL)`,
      [session.id, session.userId, session.customerId, session.createdAt, session.expiresAt],
    );
    await sql(this.manager, `INSERT INTO identity.refresh_tokens (token_hash, session_id, issued_at, rotated_at) VALUES ($1, $2, $3, NULL)`, [
      session.refreshTokenHash,
      session.id,
      session.createdAt,
    ]);
  }

  findById(id: string): Promise<SessionEntity | null> {
    return this.manager.findOneBy(SessionEntity, { id });
  }

  async findCredentialState(id: string): Promise<SessionCredentialState | null> {
    const { rows } = await sql(this.manager, `SELECT ${SESSION_STATE} WHERE s.id = $1`, [id]);
    return rows[0] ? toSessionState(rows[0]) : null;
  }

  /** The refresh token with this hash, rotated or not, with its session's state. */
  async findRefreshToken(tokenHash: string): Promise<RefreshTokenState | null> {
    const { rows } = await sql(
      this.manager,
      `SELECT r.token_hash, r.session_id, r.rotated_at, s.created_at, u.email, c.domain AS customer_domain, ${SESSION_STATE}
         JOIN identity.refresh_tokens r ON r.session_id = s.id
        WHERE r.token_hash = $1`,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      ...toSessionState(row),
      tokenHash: String(row.token_hash),
      sessionId: String(row.session_id),
      rotatedAt: toNullableDate(row.rotated_at),
      createdAt: toDate(row.created_at),
      email: String(row.email),
      customerDomain: String(row.customer_domain),
    };
  }

  /**
   * Rotation (call inside a transaction): marks the presented token rotated unless another
   * request already did, stores its successor and notes the session's use. false when this
   * call lost the race (the token was rotated meanwhile).
   */
  async rotate(input: { tokenHash: string; nextHash: string; sessionId: string; at: Date }): Promise<boolean> {
    const marked = await sql(this.manager, `UPDATE identity.refresh_tokens SET rotated_at = $2 WHERE token_hash = $1 AND rotated_at IS NULL`, [
      input.tokenHash,
      input.at,
    ]);
    if (marked.affected === 0) return false;
    await sql(
      this.manager,
      `INSERT INTO identity.refresh_tokens (token_hash, session_id, issued_at, rotated_at) VALUES ($1, $2, $3, NULL) ON CONFLICT DO NOTHING`,
      [input.nextHash, input.sessionId, input.at],
    );
    await this.touch(input.sessionId, input.at);
    return true;
  }

  /** Notes activity (the 12-hour idle limit counts from here). */
  async touch(sessionId: string, at: Date): Promise<void> {
    await sql(this.manager, `UPDATE identity.sessions SET last_used_at = GREATEST(last_used_at, $2) WHERE id = $1`, [sessionId, at]);
  }

  /** POST /auth/switch. */
  async setCustomer(change: Tenant<{ sessionId: string }>): Promise<void> {
    await sql(this.manager, `UPDATE identity.sessions SET customer_id = $2 WHERE id = $1`, [change.sessionId, change.customerId]);
  }

  /** Unended sessions of a person (optionally only those on one customer). */
  async openIds(input: { userId: string; customerId?: CustomerId; now: Date }): Promise<string[]> {
    const params: unknown[] = [input.userId, input.now];
    const onCustomer = input.customerId ? ` AND customer_id = $${params.push(input.customerId)}` : '';
    const { rows } = await sql(
      this.manager,
      `SELECT id FROM identity.sessions WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2${onCustomer}`,
      params,
    );
    return rows.map((r) => String(r.id));
  }

  /**
   * Ends every open session of a person and/or on a customer in one statement (user disabled,
   * member removed, customer suspended); answers the ids it ended.
   */
  async revokeOpen(input: { userId?: string; customerId?: CustomerId; at: Date; reason: string }): Promise<string[]> {
    if (!input.userId && !input.customerId) throw new Error('revokeOpen needs a user or a customer');
    const params: unknown[] = [input.at, input.reason];
    const byUser = input.userId ? ` AND user_id = $${params.push(input.userId)}` : '';
    const onCustomer = input.customerId ? ` AND customer_id = $${params.push(input.customerId)}` : '';
    const { rows } = await sql(
      this.manager,
      `UPDATE identity.sessions SET revoked_at = $1, revoked_reason = $2 WHERE revoked_at IS NULL AND expires_at > $1${byUser}${onCustomer} RETURNING id`,
      params,
    );
    return rows.map((r) => String(r.id));
  }

  /** Ends a session (logout, refresh reuse, member removal); true when this call ended it. */
  async revoke(input: { id: string; at: Date; reason: string }): Promise<boolean> {
    const result = await sql(this.manager, `UPDATE identity.sessions SET revoked_at = $2, revoked_reason = $3 WHERE id = $1 AND revoked_at IS NULL`, [
      input.id,
      input.at,
      input.reason,
    ]);
    return result.affected > 0;
  }
}
