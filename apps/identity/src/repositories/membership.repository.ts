import type { CustomerId, Role } from '@app/contracts';
import type { Customer, CustomerStatus } from '../domain/records.js';
import { CustomerEntity } from '../entities/customer.entity.js';
import { MembershipEntity } from '../entities/membership.entity.js';
import { BaseRepository, type Row, sql, type Tenant, toDate, toNullableDate } from '@app/infra';

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

/** The memberships of one customer ($1) joined with their users, as toMember reads them. */
const MEMBERS_OF_CUSTOMER = `SELECT u.id AS user_id, u.email, m.role, m.created_at, u.last_login_at, u.disabled
   FROM identity.memberships m
   JOIN identity.users u ON u.id = m.user_id
  WHERE m.customer_id = $1`;

export class MembershipRepository extends BaseRepository {
  /** Adds the membership unless the user already belongs to the customer; true when added. */
  async addIfAbsent(input: Tenant<{ userId: string; role: Role; at: Date }>): Promise<boolean> {
    const { rows } = await sql(
      this.manager,
      `INSERT INTO identity.memberships (customer_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING user_id`,
      [input.customerId, input.userId, input.role, input.at],
    );
    return rows.length > 0;
  }

  async findRole(input: Tenant<{ userId: string }>): Promise<Role | null> {
    const row = await this.manager.findOneBy(MembershipEntity, { customerId: input.customerId, userId: input.userId });
    return row?.role ?? null;
  }

  async hasOwner(customerId: CustomerId): Promise<boolean> {
    return this.manager.existsBy(MembershipEntity, { customerId, role: 'owner' });
  }

  /** The user's memberships with the customers' domains, sorted by domain (none of a customer being deleted). */
  async listForUser(userId: string): Promise<UserMembership[]> {
    const { rows } = await sql(
      this.manager,
      `SELECT m.customer_id, c.domain, m.role, c.status, m.created_at
         FROM identity.memberships m
         JOIN identity.customers c ON c.id = m.customer_id
        WHERE m.user_id = $1 AND c.status <> 'deleting'
        ORDER BY c.domain ASC`,
      [userId],
    );
    return rows.map((r) => ({
      customerId: r.customer_id as CustomerId,
      domain: String(r.domain),
      role: r.role as Role,
      customerStatus: r.status as CustomerStatus,
      createdAt: toDate(r.created_at),
    }));
  }

  /** The emails of those of these users who are members of the customer (the others are left out). */
  async memberEmailsOf(input: Tenant<{ userIds: readonly string[] }>): Promise<Map<string, string>> {
    if (input.userIds.length === 0) return new Map();
    const { rows } = await sql(
      this.manager,
      `SELECT u.id::text AS id, u.email FROM identity.users u
       JOIN identity.memberships m ON m.user_id = u.id AND m.customer_id = $1
       WHERE u.id = ANY($2::uuid[])`,
      [input.customerId, [...input.userIds]],
    );
    return new Map(rows.map((row) => [String(row.id), String(row.email)]));
  }

  /** The members of one customer with their user's state, sorted by email. */
  async listMembers(customerId: CustomerId): Promise<CustomerMember[]> {
    const { rows } = await sql(this.manager, `${MEMBERS_OF_CUSTOMER} ORDER BY u.email ASC`, [customerId]);
    return rows.map(toMember);
  }

  /** One member of a customer by email (lower-case), or null. */
  async findMember(query: Tenant<{ email: string }>): Promise<CustomerMember | null> {
    const { rows } = await sql(this.manager, `${MEMBERS_OF_CUSTOMER} AND u.email = $2`, [query.customerId, query.email.toLowerCase()]);
    return rows[0] ? toMember(rows[0]) : null;
  }

  async countOwners(customerId: CustomerId): Promise<number> {
    return this.manager.countBy(MembershipEntity, { customerId, role: 'owner' });
  }

  async updateRole(input: Tenant<{ userId: string; role: Role }>): Promise<void> {
    await sql(this.manager, `UPDATE identity.memberships SET role = $3 WHERE customer_id = $1 AND user_id = $2`, [input.customerId, input.userId, input.role]);
  }

  /** true when a membership was removed. */
  async remove(input: Tenant<{ userId: string }>): Promise<boolean> {
    const result = await sql(this.manager, `DELETE FROM identity.memberships WHERE customer_id = $1 AND user_id = $2`, [input.customerId, input.userId]);
    return result.affected > 0;
  }

  /** Every membership of every person with the customer's domain (GET /admin/users), by email then domain; none of a customer being deleted. */
  async listAll(): Promise<Array<CustomerMember & { domain: string }>> {
    const { rows } = await sql(
      this.manager,
      `SELECT u.id AS user_id, u.email, c.domain, m.role, m.created_at, u.last_login_at, u.disabled
         FROM identity.memberships m
         JOIN identity.users u ON u.id = m.user_id
         JOIN identity.customers c ON c.id = m.customer_id
        WHERE c.status <> 'deleting'
        ORDER BY u.email ASC, c.domain ASC`,
    );
    return rows.map((r) => ({ ...toMember(r), domain: String(r.domain) }));
  }

  /** Enabled members of a customer with one of these roles (e.g. the operators who get critical security events). */
  async enabledEmailsWithRoles(customerId: CustomerId, roles: readonly Role[]): Promise<string[]> {
    const { rows } = await sql(
      this.manager,
      `SELECT u.email FROM identity.memberships m
         JOIN identity.users u ON u.id = m.user_id
        WHERE m.customer_id = $1 AND m.role = ANY($2::text[]) AND u.disabled = false
        ORDER BY u.email ASC`,
      [customerId, [...roles]],
    );
    return rows.map((r) => String(r.email));
  }

  /**
   * The customer a new session of this user starts in: among active customers the user
   * belongs to, the one of their most recent session, else the oldest membership.
   */
  async preferredForLogin(userId: string): Promise<{ customer: Customer; role: Role } | null> {
    const { rows } = await sql(
      this.manager,
      `SELECT m.customer_id, m.role,
              (SELECT MAX(s.created_at) FROM identity.sessions s WHERE s.user_id = m.user_id AND s.customer_id = m.customer_id) AS last_session_at
         FROM identity.memberships m
         JOIN identity.customers c ON c.id = m.customer_id
        WHERE m.user_id = $1 AND c.status = 'active'
        ORDER BY last_session_at DESC NULLS LAST, m.created_at ASC, c.domain ASC
        LIMIT 1`,
      [userId],
    );
    const row = rows[0];
    if (!row) return null;
    const customer = await this.manager.findOneBy(CustomerEntity, { id: row.customer_id as CustomerId });
    return customer ? { customer, role: row.role as Role } : null;
  }
}

function toMember(r: Row): CustomerMember {
  return {
    userId: String(r.user_id),
    email: String(r.email),
    role: r.role as Role,
    createdAt: toDate(r.created_at),
    lastLoginAt: toNullableDate(r.last_login_at),
    userDisabled: r.disabled === true,
  };
}
