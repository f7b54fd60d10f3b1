import type { Bundle, CustomerId, Scope } from '@app/contracts';
import type { ApiToken, CustomerStatus } from '../domain/records.js';
import { ApiTokenEntity } from '../entities/api-token.entity.js';
import { BaseRepository, sql, type Tenant, toDate, toInt, toNullableDate } from '@app/infra';

export interface NewApiToken {
  readonly id: string;
  readonly customerId: CustomerId;
  readonly createdBy: string;
  readonly name: string;
  readonly bundle: Bundle;
  readonly scopes: readonly Scope[];
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** What credentialStatus needs to decide whether a token still works. */
export interface TokenCredentialState {
  readonly revokedAt: Date | null;
  readonly expiresAt: Date;
  readonly userDisabled: boolean;
  readonly customerStatus: CustomerStatus;
  readonly createdBy: string;
  readonly customerId: CustomerId;
  readonly customerDomain: string;
  readonly scopes: Scope[];
}

export class ApiTokenRepository extends BaseRepository {
  async insert(token: Tenant<NewApiToken>): Promise<void> {
    await sql(
      this.manager,
      `INSERT INTO identity.api_tokens (id, customer_id, created_by, name, bundle, scopes, created_at, expires_at, revoked_at, last_used_at)
       VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8, NULL, NULL)`,
      [token.id, token.customerId, token.createdBy, token.name, token.bundle, [...token.scopes], token.createdAt, token.expiresAt],
    );
  }

  findInCustomer(input: Tenant<{ id: string }>): Promise<ApiToken | null> {
    return this.manager.findOneBy(ApiTokenEntity, { id: input.id, customerId: input.customerId });
  }

  /** Tokens of a customer, newest first; `createdBy` narrows to one user's tokens. */
  listInCustomer(input: Tenant<{ createdBy?: string }>): Promise<ApiToken[]> {
    return this.manager.find(ApiTokenEntity, {
      where: { customerId: input.customerId, ...(input.createdBy ? { createdBy: input.createdBy } : {}) },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** Sets revoked_at unless already revoked; true when this call revoked it. */
  async revoke(input: Tenant<{ id: string; at: Date }>): Promise<boolean> {
    const result = await sql(this.manager, `UPDATE identity.api_tokens SET revoked_at = $3 WHERE id = $1 AND customer_id = $2 AND revoked_at IS NULL`, [
      input.id,
      input.customerId,
      input.at,
    ]);
    return result.affected > 0;
  }

  /**
   * Looked up by jti alone: the gateway asks about a token it verified, before it knows
   * anything else. The answer carries the token's own customer state.
   */
  async findCredentialState(id: string): Promise<TokenCredentialState | null> {
    const { rows } = await sql(
      this.manager,
      `SELECT t.revoked_at, t.expires_at, u.disabled AS user_disabled, c.status AS customer_status, t.created_by, t.customer_id,
              c.domain AS customer_domain, t.scopes
         FROM identity.api_tokens t
         JOIN identity.users u ON u.id = t.created_by
         JOIN identity.customers c ON c.id = t.customer_id
        WHERE t.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      revokedAt: toNullableDate(row.revoked_at),
      expiresAt: toDate(row.expires_at),
      userDisabled: row.user_disabled === true,
      customerStatus: row.customer_status as CustomerStatus,
      createdBy: String(row.created_by),
      customerId: row.customer_id as CustomerId,
      customerDomain: String(row.customer_domain),
      scopes: [...(row.scopes as Scope[])],
    };
  }

  /**
   * Revokes every unrevoked token a person created (optionally only for one customer), in one
   * statement; answers the ids it revoked with their customer (user disabled, member removed).
   */
  async revokeCreatedBy(input: { userId: string; customerId?: CustomerId; at: Date }): Promise<Array<{ id: string; customerId: CustomerId }>> {
    const params: unknown[] = [input.userId, input.at];
    const inCustomer = input.customerId ? ` AND customer_id = $${params.push(input.customerId)}` : '';
    const { rows } = await sql(
      this.manager,
      `UPDATE identity.api_tokens SET revoked_at = $2 WHERE created_by = $1 AND revoked_at IS NULL${inCustomer} RETURNING id, customer_id`,
      params,
    );
    return rows.map((r) => ({ id: String(r.id), customerId: r.customer_id as CustomerId }));
  }

  /** Ids of a person's tokens that still work (not revoked, not expired). */
  async activeIdsCreatedBy(userId: string, now: Date): Promise<string[]> {
    const { rows } = await sql(this.manager, `SELECT id FROM identity.api_tokens WHERE created_by = $1 AND revoked_at IS NULL AND expires_at > $2`, [
      userId,
      now,
    ]);
    return rows.map((r) => String(r.id));
  }

  /** One statement for a batch of usage times; never moves last_used_at backwards. */
  async recordLastUsed(entries: ReadonlyArray<{ id: string; at: Date }>): Promise<void> {
    if (entries.length === 0) return;
    await sql(
      this.manager,
      `UPDATE identity.api_tokens AS t
          SET last_used_at = GREATEST(COALESCE(t.last_used_at, u.at), u.at)
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
        WHERE t.id = u.id`,
      [entries.map((e) => e.id), entries.map((e) => e.at.toISOString())],
    );
  }

  /** Unrevoked, unexpired tokens per customer. */
  async countActiveByCustomer(customerIds: readonly CustomerId[], now: Date): Promise<Map<CustomerId, number>> {
    const counts = new Map<CustomerId, number>();
    if (customerIds.length === 0) return counts;
    const { rows } = await sql(
      this.manager,
      `SELECT customer_id, COUNT(*) AS n FROM identity.api_tokens
        WHERE customer_id = ANY($1::uuid[]) AND revoked_at IS NULL AND expires_at > $2
        GROUP BY customer_id`,
      [[...customerIds], now],
    );
    for (const row of rows) counts.set(row.customer_id as CustomerId, toInt(row.n));
    return counts;
  }
}
