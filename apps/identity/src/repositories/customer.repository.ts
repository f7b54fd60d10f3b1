import { type CustomerId, IdentityErrors } from '@app/contracts';
import type { Customer, CustomerStatus } from '../domain/records.js';
import { CustomerEntity } from '../entities/customer.entity.js';
import { BaseRepository, isUniqueViolation } from '@app/infra';
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
    const result = await this.manager
      .createQueryBuilder()
      .insert()
      .into(CustomerEntity)
      .values({
        id: customer.id,
        domain: customer.domain,
        name: customer.name,
        status: 'active',
        corsOrigins: [...customer.corsOrigins],
        isSandbox: customer.isSandbox,
        createdAt: customer.at,
        updatedAt: customer.at,
      })
      .orIgnore()
      .returning(['id'])
      .execute();
    return Array.isArray(result.raw) && result.raw.length > 0;
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
  async deleteRow(id: CustomerId): Promise<void> {
    await this.manager.createQueryBuilder().delete().from(CustomerEntity).where('id = :id', { id }).execute();
  }

  /** The union of the active customers' cors_origins (preflights). */
  async corsOriginsOfActive(): Promise<string[]> {
    const rows: { origin: string }[] = await this.manager.query(
      `SELECT DISTINCT unnest(cors_origins) AS origin FROM identity.customers WHERE status = 'active' ORDER BY origin`,
    );
    return rows.map((r) => r.origin);
  }

  /** Every customer but those being deleted. */
  listAll(): Promise<Customer[]> {
    return this.manager.find(CustomerEntity, { where: { status: Not('deleting' as const) }, order: { domain: 'ASC' } });
  }

  /** Suspend or reactivate. */
  async setStatus(id: CustomerId, status: CustomerStatus, at: Date): Promise<void> {
    await this.manager.createQueryBuilder().update(CustomerEntity).set({ status, updatedAt: at }).where('id = :id', { id }).execute();
  }

  /** PATCH /settings: the customer's polling interval for its devices (null: the default). */
  async setPollInterval(id: CustomerId, seconds: number | null, at: Date): Promise<void> {
    await this.manager.createQueryBuilder().update(CustomerEntity).set({ pollIntervalSeconds: seconds, updatedAt: at }).where('id = :id', { id }).execute();
  }

  /** PATCH /admin/customers: the given fields only. A domain another customer has is refused (customer_exists). */
  async update(id: CustomerId, change: { name?: string; domain?: string; status?: CustomerStatus; corsOrigins?: readonly string[] }, at: Date): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .update(CustomerEntity)
      .set({
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.domain !== undefined ? { domain: change.domain } : {}),
        ...(change.status !== undefined ? { status: change.status } : {}),
        ...(change.corsOrigins !== undefined ? { corsOrigins: [...change.corsOrigins] } : {}),
        updatedAt: at,
      })
      .where('id = :id', { id })
      .execute()
      .catch((err: unknown) => {
        throw isUniqueViolation(err) ? IdentityErrors.customer_exists() : err;
      });
  }
}
