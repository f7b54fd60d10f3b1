import type { CustomerId, Role } from '@app/contracts';
import type { CustomerStatus } from '../domain/records.js';
import { CustomerEntity } from '../entities/customer.entity.js';
import { MembershipEntity } from '../entities/membership.entity.js';
import { SessionEntity } from '../entities/session.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import { BaseRepository, toDate, toNullableDate } from '@app/infra';

export interface UserMembership {
  readonly customerId: CustomerId;
  readonly domain: string;
  readonly role: Role;
  readonly customerStatus: CustomerStatus;
  readonly createdAt: Date;
}

export interface CustomerMember {
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  readonly createdAt: Date;
  readonly lastLoginAt: Date | null;
  readonly userDisabled: boolean;
}

export class MembershipRepository extends BaseRepository {
  /** Adds the membership unless the user already belongs to the customer; true when added. */
  async addIfAbsent(input: { customerId: CustomerId; userId: string; role: Role; at: Date }): Promise<boolean> {
    const result = await this.manager
      .createQueryBuilder()
      .insert()
      .into(MembershipEntity)
      .values({ customerId: input.customerId, userId: input.userId, role: input.role, createdAt: input.at })
      .orIgnore()
      .returning(['userId']) // property paths; raw rows carry column names
      .execute();
    return Array.isArray(result.raw) && result.raw.length > 0;
  }

  async findRole(input: { customerId: CustomerId; userId: string }): Promise<Role | null> {
    const row = await this.manager.findOneBy(MembershipEntity, { customerId: input.customerId, userId: input.userId });
    return row?.role ?? null;
  }

  async hasOwner(customerId: CustomerId): Promise<boolean> {
    return this.manager.existsBy(MembershipEntity, { customerId, role: 'owner' });
  }

  /** The user's memberships with the customers' domains, sorted by domain (none of a customer being deleted). */
  async listForUser(userId: string): Promise<UserMembership[]> {
    const rows = await this.manager
      .createQueryBuilder(MembershipEntity, 'm')
      .innerJoin(CustomerEntity, 'c', 'c.id = m.customer_id')
      .select(['m.customer_id AS customer_id', 'c.domain AS domain', 'm.role AS role', 'c.status AS status', 'm.created_at AS created_at'])
      .where('m.user_id = :userId', { userId })
      .andWhere(`c.status <> 'deleting'`)
      .orderBy('c.domain', 'ASC')
      .getRawMany<{ customer_id: string; domain: string; role: Role; status: CustomerStatus; created_at: unknown }>();
    return rows.map((r) => ({
      customerId: r.customer_id as CustomerId,
      domain: r.domain,
      role: r.role,
      customerStatus: r.status,
      createdAt: toDate(r.created_at),
    }));
  }

  /** The emails of those of these users who are members of the customer (the others are left out). */
  async memberEmailsOf(input: { customerId: CustomerId; userIds: readonly string[] }): Promise<Map<string, string>> {
    if (input.userIds.length === 0) return new Map();
    const rows: Array<{ id: string; email: string }> = await this.manager.query(
      `SELECT u.id::text AS id, u.email FROM identity.users u
       JOIN identity.memberships m ON m.user_id = u.id AND m.customer_id = $1
       WHERE u.id = ANY($2::uuid[])`,
      [input.customerId, [...input.userIds]],
    );
    return new Map(rows.map((row) => [row.id, row.email]));
  }

  /** The members of one customer with their user's state, sorted by email. */
  async listMembers(customerId: CustomerId): Promise<CustomerMember[]> {
    const rows = await this.members(customerId).orderBy('u.email', 'ASC').getRawMany<MemberRow>();
    return rows.map(toMember);
  }

  /** One member of a customer by email (lower-case), or null. */
  async findMember(customerId: CustomerId, email: string): Promise<CustomerMember | null> {
    const rows = await this.members(customerId).andWhere('u.email = :email', { email: email.toLowerCase() }).getRawMany<MemberRow>();
    return rows[0] ? toMember(rows[0]) : null;
  }

  /** The memberships of one customer joined with their users, as MemberRow columns. */
  private members(customerId: CustomerId) {
    return this.manager
      .createQueryBuilder(MembershipEntity, 'm')
      .innerJoin(UserEntity, 'u', 'u.id = m.user_id')
      .select([
        'u.id AS user_id',
        'u.email AS email',
        'm.role AS role',
        'm.created_at AS created_at',
        'u.last_login_at AS last_login_at',
        'u.disabled AS disabled',
      ])
      .where('m.customer_id = :customerId', { customerId });
  }

  async countOwners(customerId: CustomerId): Promise<number> {
    return this.manager.countBy(MembershipEntity, { customerId, role: 'owner' });
  }

  async updateRole(input: { customerId: CustomerId; userId: string; role: Role }): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .update(MembershipEntity)
      .set({ role: input.role })
      .where('customer_id = :customerId AND user_id = :userId', { customerId: input.customerId, userId: input.userId })
      .execute();
  }

  /** true when a membership was removed. */
  async remove(input: { customerId: CustomerId; userId: string }): Promise<boolean> {
    const result = await this.manager
      .createQueryBuilder()
      .delete()
      .from(MembershipEntity)
      .where('customer_id = :customerId AND user_id = :userId', { customerId: input.customerId, userId: input.userId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Every membership of every person with the customer's domain (GET /admin/users), by email then domain; none of a customer being deleted. */
  async listAll(): Promise<Array<CustomerMember & { domain: string }>> {
    const rows = await this.manager
      .createQueryBuilder(MembershipEntity, 'm')
      .innerJoin(UserEntity, 'u', 'u.id = m.user_id')
      .innerJoin(CustomerEntity, 'c', 'c.id = m.customer_id')
      .select([
        'u.id AS user_id',
        'u.email AS email',
        'c.domain AS domain',
        'm.role AS role',
        'm.created_at AS created_at',
        'u.last_login_at AS last_login_at',
        'u.disabled AS disabled',
      ])
      .where(`c.status <> 'deleting'`)
      .orderBy('u.email', 'ASC')
      .addOrderBy('c.domain', 'ASC')
      .getRawMany<{ user_id: string; email: string; domain: string; role: Role; created_at: unknown; last_login_at: unknown; disabled: boolean }>();
    return rows.map((r) => ({
      userId: r.user_id,
      email: r.email,
      domain: r.domain,
      role: r.role,
      createdAt: toDate(r.created_at),
      lastLoginAt: toNullableDate(r.last_login_at),
      userDisabled: r.disabled === true,
    }));
  }

  /** Enabled owners and editors of a customer (the operators who get critical security events). */
  async enabledEmailsWithRoles(customerId: CustomerId, roles: readonly Role[]): Promise<string[]> {
    const rows = await this.manager
      .createQueryBuilder(MembershipEntity, 'm')
      .innerJoin(UserEntity, 'u', 'u.id = m.user_id')
      .select('u.email', 'email')
      .where('m.customer_id = :customerId AND m.role IN (:...roles) AND u.disabled = false', { customerId, roles: [...roles] })
      .orderBy('u.email', 'ASC')
      .getRawMany<{ email: string }>();
    return rows.map((r) => r.email);
  }

  /**
   * The customer a new session of this user starts in: among active customers the user
   * belongs to, the one of their most recent session, else the oldest membership.
   */
  async preferredForLogin(userId: string): Promise<{ customer: CustomerEntity; role: Role } | null> {
    const row = await this.manager
      .createQueryBuilder(MembershipEntity, 'm')
      .innerJoin(CustomerEntity, 'c', 'c.id = m.customer_id')
      .select(['m.customer_id AS customer_id', 'm.role AS role'])
      .addSelect(
        (sub) => sub.select('MAX(s.created_at)').from(SessionEntity, 's').where('s.user_id = m.user_id').andWhere('s.customer_id = m.customer_id'),
        'last_session_at',
      )
      .where('m.user_id = :userId', { userId })
      .andWhere(`c.status = 'active'`)
      .orderBy('last_session_at', 'DESC', 'NULLS LAST')
      .addOrderBy('m.created_at', 'ASC')
      .addOrderBy('c.domain', 'ASC')
      .limit(1)
      .getRawOne<{ customer_id: string; role: Role }>();
    if (!row) return null;
    const customer = await this.manager.findOneBy(CustomerEntity, { id: row.customer_id as CustomerId });
    return customer ? { customer, role: row.role } : null;
  }
}

interface MemberRow {
  user_id: string;
  email: string;
  role: Role;
  created_at: unknown;
  last_login_at: unknown;
  disabled: boolean;
}

function toMember(r: MemberRow): CustomerMember {
  return {
    userId: r.user_id,
    email: r.email,
    role: r.role,
    createdAt: toDate(r.created_at),
    lastLoginAt: toNullableDate(r.last_login_at),
    userDisabled: r.disabled === true,
  };
}
