import { type CustomerId, IdentityErrors } from '@app/contracts';
import type { Customer, CustomerChange, CustomerStatus } from '../domain/records.js';
import { CustomerEntity } from '../entities/customer.entity.js';
import { BaseRepository, isUniqueViolation, sql, type Tenant } from '@app/infra';
import { Not } from 'typeorm';

export interface NewCustomer {
  readonly id: string;
  readonly domain: string;
  readonly name: string;
  readonly corsOrigins: readonly string[];
  readonly isSandbox: boolean;
  readonly at: Date;
}

export class CustomerRepository extends BaseRepository {
  /** Inserts unless the domain is taken; true when this call created the customer. */
  async insertIfAbsent(customer: NewCustomer): Promise<boolean> {
    const { rows } = await sql(
      this.manager,
      `INSERT INTO identity.customers (id, domain, name, status, cors_origins, is_sandbox, created_at, updated_at)
       VALUES ($1, $2, $3, 'active', $4::text[], $5, $6, $6)
       ON CONFLICT DO NOTHING
       RETURNING id`,
      [customer.id, customer.domain, customer.name, [...customer.corsOrigins], customer.isSandbox, customer.at],
    );
    return rows.length > 0;
  }

  /** A customer being deleted is unknown here (and so everywhere). */
  findByDomain(domain: string): Promise<Customer | null> {
    return this.manager.findOneBy(CustomerEntity, { domain: domain.toLowerCase(), status: Not('deleting' as const) });
  }

  /** A customer being deleted is unknown here (and so everywhere). */
  findById(id: CustomerId): Promise<Customer | null> {
    return this.manager.findOneBy(CustomerEntity, { id, status: Not('deleting' as const) });
  }

  /** Also a customer being deleted (DELETE /admin/customers resumes it). */
  findByDomainEvenDeleting(domain: string): Promise<Customer | null> {
    return this.manager.findOneBy(CustomerEntity, { domain: domain.toLowerCase() });
  }

  /** The deletions under way, oldest change first. */
  listDeleting(): Promise<Customer[]> {
    return this.manager.find(CustomerEntity, { where: { status: 'deleting' }, order: { updatedAt: 'ASC' } });
  }

  /** Last step of a deletion: the row, and with it (ON DELETE CASCADE) its memberships, tokens, sessions and refresh tokens. */
  async deleteRow(customer: Tenant): Promise<void> {
    await sql(this.manager, `DELETE FROM identity.customers WHERE id = $1`, [customer.customerId]);
  }

  /** The union of the active customers' cors_origins (preflights). */
  async corsOriginsOfActive(): Promise<string[]> {
    const { rows } = await sql(this.manager, `SELECT DISTINCT unnest(cors_origins) AS origin FROM identity.customers WHERE status = 'active' ORDER BY origin`);
    return rows.map((r) => String(r.origin));
  }

  /** Every customer but those being deleted. */
  listAll(): Promise<Customer[]> {
    return this.manager.find(CustomerEntity, { where: { status: Not('deleting' as const) }, order: { domain: 'ASC' } });
  }

  /** Suspend or reactivate. */
  async setStatus(change: Tenant<{ status: CustomerStatus; at: Date }>): Promise<void> {
    await sql(this.manager, `UPDATE identity.customers SET status = $2, updated_at = $3 WHERE id = $1`, [change.customerId, change.status, change.at]);
  }

  /** PATCH /settings: the customer's polling interval for its devices (null: the default). */
  async setPollInterval(change: Tenant<{ seconds: number | null; at: Date }>): Promise<void> {
    await sql(this.manager, `UPDATE identity.customers SET poll_interval_seconds = $2, updated_at = $3 WHERE id = $1`, [
      change.customerId,
      change.seconds,
      change.at,
    ]);
  }

  /** PATCH /admin/customers: the given fields only. A domain another customer has is refused (customer_exists). */
  async update(change: Tenant<CustomerChange & { at: Date }>): Promise<void> {
    const params: unknown[] = [change.customerId, change.at];
    const sets = ['updated_at = $2'];
    if (change.name !== undefined) sets.push(`name = $${params.push(change.name)}`);
    if (change.domain !== undefined) sets.push(`domain = $${params.push(change.domain)}`);
    if (change.status !== undefined) sets.push(`status = $${params.push(change.status)}`);
    if (change.corsOrigins !== undefined) sets.push(`cors_origins = $${params.push([...change.corsOrigins])}::text[]`);
    await sql(this.manager, `UPDATE identity.customers SET ${sets.join(', ')} WHERE id = $1`, params).catch((err: unknown) => {
      throw isUniqueViolation(err) ? IdentityErrors.customer_exists() : err;
    });
  }
}
