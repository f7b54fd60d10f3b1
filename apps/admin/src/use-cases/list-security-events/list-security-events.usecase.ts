import { Inject, Injectable } from '@nestjs/common';
import type { SecurityEventView } from '@app/contracts';
import { AdminStore } from '../../repositories/admin.store.js';
import type { ListSecurityEventsCommand } from './list-security-events.command.js';

/** GET /admin/security/events: newest first, filtered (docs/api.md "Security events"). */
@Injectable()
export class ListSecurityEvents {
  constructor(@Inject(AdminStore) private readonly adminStore: AdminStore) {}

  async execute(command: ListSecurityEventsCommand): Promise<{ items: SecurityEventView[] }> {
    return { items: await this.adminStore.repos.securityEvents.list(command.filter) };
  }
}
