import type { CustomerId } from '@app/contracts';
import { LogFileEntity } from '../src/entities/log-file.entity.js';
import type { Tenant } from '@app/infra';
import type { LogFileFilter, LogFileRepository, NewLogFile, StoredCounts } from '../src/repositories/log-file.repository.js';
import type { LogdataRepositories, LogdataStore } from '../src/repositories/logdata.store.js';

/** LogFileRepository's contract in memory, for unit tests of the use cases. */
export class MemoryLogFileRepository implements Pick<LogFileRepository, keyof LogFileRepository> {
  readonly rows = new Map<string, LogFileEntity>();
  readonly calls: string[] = [];
  /** Make the next calls of a method throw. */
  failures: Partial<Record<keyof LogFileRepository, Error>> = {};

  asRepository(): LogFileRepository {
    return this as unknown as LogFileRepository;
  }

  /** A LogdataStore over this repository (a transaction is the same repositories: memory has no rollback). */
  asStore(): LogdataStore {
    const repos: LogdataRepositories = { files: this.asRepository() };
    return { repos, transaction: <T>(work: (r: LogdataRepositories) => Promise<T>) => work(repos) } as unknown as LogdataStore;
  }

  async insertIfAbsent(file: Tenant<NewLogFile>): Promise<LogFileEntity | null> {
    this.track('insertIfAbsent');
    const key = `${file.customerId}/${file.name}`;
    if (this.rows.has(key)) return null;
    const entity = Object.assign(new LogFileEntity(), {
      ...file,
      uploadedAt: new Date(),
      downloadCount: 0,
      lastAccessedAt: null,
    });
    this.rows.set(key, entity);
    return entity;
  }

  async findByName(query: Tenant<{ name: string }>): Promise<LogFileEntity | null> {
    this.track('findByName');
    return this.rows.get(`${query.customerId}/${query.name}`) ?? null;
  }

  async list(query: Tenant<LogFileFilter>): Promise<LogFileEntity[]> {
    this.track('list');
    return [...this.rows.values()]
      .filter((f) => f.customerId === query.customerId)
      .filter((f) => !query.prefix || f.name.startsWith(query.prefix))
      .filter((f) => !query.uploadedAfter || f.uploadedAt > query.uploadedAfter)
      .filter((f) => !query.uploadedBefore || f.uploadedAt < query.uploadedBefore)
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .slice(query.offset, query.offset + query.limit);
  }

  async recordDownload(query: Tenant<{ name: string; at: Date }>): Promise<boolean> {
    this.track('recordDownload');
    const row = this.rows.get(`${query.customerId}/${query.name}`);
    if (!row) return false;
    row.downloadCount += 1;
    if (!row.lastAccessedAt || row.lastAccessedAt < query.at) row.lastAccessedAt = query.at;
    return true;
  }

  async ownedObjectKeys(keys: readonly string[]): Promise<string[]> {
    this.track('ownedObjectKeys');
    const wanted = new Set(keys);
    return [...this.rows.values()].map((row) => row.objectKey).filter((key) => wanted.has(key));
  }

  async countsByCustomer(customerIds: readonly CustomerId[]): Promise<Map<CustomerId, StoredCounts>> {
    this.track('countsByCustomer');
    const counts = new Map<CustomerId, StoredCounts>();
    for (const row of this.rows.values()) {
      if (!customerIds.includes(row.customerId)) continue;
      const c = counts.get(row.customerId) ?? { count: 0, storedBytes: 0 };
      counts.set(row.customerId, { count: c.count + 1, storedBytes: c.storedBytes + row.sizeBytes });
    }
    return counts;
  }

  async objectKeysOfCustomer(customerId: CustomerId): Promise<string[]> {
    this.track('objectKeysOfCustomer');
    return [...this.rows.values()].filter((row) => row.customerId === customerId).map((row) => row.objectKey);
  }

  async deleteCustomerRows(customerId: CustomerId): Promise<number> {
    this.track('deleteCustomerRows');
    let rows = 0;
    for (const [key, row] of this.rows) {
      if (row.customerId === customerId && this.rows.delete(key)) rows++;
    }
    return rows;
  }

  private track(method: keyof LogFileRepository): void {
    this.calls.push(method);
    const failure = this.failures[method];
    if (failure) throw failure;
  }
}
