import type { AuditEntryInput } from '@app/contracts';
import { openAppDatabase, type ServiceConfig } from '@app/infra';
import type { DataSource } from 'typeorm';
import { ADMIN_DATABASE } from '../admin.module.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { AuditService } from '../audit/audit.service.js';

/**
 * For the operator CLI, in-process: stores audit entries (the payloads of AdminEvents.audit)
 * straight into the admin schema, as the admin app does for the events it receives; the CLI
 * runs without a message bus and without a running admin app. Opens the admin DataSource with
 * openAppDatabase (migrations included) and closes it again, unless the caller passes its own
 * `dataSource`.
 */
export async function recordAuditEntries(config: ServiceConfig, entries: readonly AuditEntryInput[], options: { dataSource?: DataSource } = {}): Promise<void> {
  if (entries.length === 0) return;
  const dataSource = options.dataSource ?? (await openAppDatabase(config, ADMIN_DATABASE));
  try {
    const audit = new AuditService(new AuditRepository(dataSource));
    for (const entry of entries) await audit.store(entry);
  } finally {
    if (!options.dataSource) await dataSource.destroy();
  }
}
