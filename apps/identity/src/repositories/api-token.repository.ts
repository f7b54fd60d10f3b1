import type { Bundle, CustomerId, Scope } from '@app/contracts';
import type { ApiToken, CustomerStatus } from '../domain/records.js';
import { ApiTokenEntity } from '../entities/api-token.entity.js';
import { CustomerEntity } from '../entities/customer.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import { BaseRepository, toDate, toInt, toNullableDate } from '@app/infra';

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
  async insert(token: NewApiToken): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .insert()
      .into(ApiTokenEntity)
      .values({ ...token, scopes: [...token.scopes], revokedAt: null, lastUsedAt: null })
      .execute();
  }

  findInCustomer(input: { customerId: CustomerId; id: string }): Promise<ApiToken | null> {
    return this.manager.findOneBy(ApiTokenEntity, { id: input.id, customerId: input.customerId });
  }

  /** Tokens of a customer, newest first; `createdBy` narrows to one user's tokens. */
  listInCustomer(input: { customerId: CustomerId; createdBy?: string }): Promise<ApiToken[]> {
    return this.manager.find(ApiTokenEntity, {
      where: { customerId: input.customerId, ...(input.createdBy ? { createdBy: input.createdBy } : {}) },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** Sets revoked_at unless already revoked; true when this call revoked it. */
  async revoke(input: { customerId: CustomerId; id: string; at: Date }): Promise<boolean> {
    const result = await this.manager
      .createQueryBuilder()
      .update(ApiTokenEntity)
      .set({ revokedAt: input.at })
      .where('id = :id AND customer_id = :customerId AND revoked_at IS NULL', { id: input.id, customerId: input.customerId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Looked up by jti alone: the gateway asks about a token it verified, before it knows
   * anything else. The answer carries the token's own customer state.
   */
  async findCredentialState(id: string): Promise<TokenCredentialState | null> {
    const row = await this.manager
      .createQueryBuilder(ApiTokenEntity, 't')
      .innerJoin(UserEntity, 'u', 'u.id = t.created_by')
      .innerJoin(CustomerEntity, 'c', 'c.id = t.customer_id')
      .select([
        't.revoked_at AS revoked_at',
        't.expires_at AS expires_at',
        'u.disabled AS user_disabled',
        'c.status AS customer_status',
        't.created_by AS created_by',
        't.customer_id AS customer_id',
        'c.domain AS customer_domain',
        't.scopes AS scopes',
      ])
      .where('t.id = :id', { id })
      .getRawOne<{
        revoked_at: unknown;
        expires_at: unknown;
        user_disabled: boolean;
        customer_status: CustomerStatus;
        created_by: string;
        customer_id: string;
        customer_domain: string;
        scopes: Scope[];
      }>();
    if (!row) return null;
    return {
      revokedAt: toNullableDate(row.revoked_at),
      expiresAt: toDate(row.expires_at),
      userDisabled: row.user_disabled === true,
      customerStatus: row.customer_status,
      createdBy: row.created_by,
      customerId: row.customer_id as CustomerId,
      customerDomain: row.customer_domain,
      scopes: [...row.scopes],
    };
  }

  /**
   * Revokes every unrevoked token a person created (optionally only for one customer), in one
   * statement; answers the ids it revoked with their customer (user disabled, member removed).
   */
  async revokeCreatedBy(input: { userId: string; customerId?: CustomerId; at: Date }): Promise<Array<{ id: string; customerId: CustomerId }>> {
    const query = this.manager
      .createQueryBuilder()
      .update(ApiTokenEntity)
      .set({ revokedAt: input.at })
      .where('created_by = :userId AND revoked_at IS NULL', { userId: input.userId });
    if (input.customerId) query.andWhere('customer_id = :customerId', { customerId: input.customerId });
    const result = await query.returning(['id', 'customerId']).execute(); // property paths; raw rows carry column names
    const rows = (Array.isArray(result.raw) ? result.raw : []) as Array<{ id: string; customer_id: string }>;
    return rows.map((r) => ({ id: r.id, customerId: r.customer_id as CustomerId }));
  }

  /** Ids of a person's tokens that still work (not revoked, not expired). */
  async activeIdsCreatedBy(userId: string, now: Date): Promise<string[]> {
    const rows = await this.manager
      .createQueryBuilder(ApiTokenEntity, 't')
      .select('t.id', 'id')
      .where('t.created_by = :userId AND t.revoked_at IS NULL AND t.expires_at > :now', { userId, now })
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  /** One statement for a batch of usage times; never moves last_used_at backwards. */
  async recordLastUsed(entries: ReadonlyArray<{ id: string; at: Date }>): Promise<void> {
    if (entries.length === 0) return;
    await this.manager.query(
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
    const rows = await this.manager
      .createQueryBuilder(ApiTokenEntity, 't')
      .select('t.customer_id', 'customer_id')
      .addSelect('COUNT(*)', 'n')
      .where('t.customer_id IN (:...customerIds)', { customerIds: [...customerIds] })
      .andWhere('t.revoked_at IS NULL')
      .andWhere('t.expires_at > :now', { now })
      .groupBy('t.customer_id')
      .getRawMany<{ customer_id: string; n: unknown }>();
    for (const row of rows) counts.set(row.customer_id as CustomerId, toInt(row.n));
    return counts;
  }
}
