import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors, type RequestLogPage } from '@app/contracts';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';
import { networkOf } from '../../stats/network-of.js';
import type { ListRequestLogCommand } from './list-request-log.command.js';

/** The default range (docs/api.md "Usage statistics"). */
const EVENTS_DEFAULT_DAYS = 7;
const DAY_MS = 86_400_000;

/** A page of the request log, newest first; a customer's own entries with the addresses cut to their network. */
@Injectable()
export class ListRequestLog {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: ListRequestLogCommand): Promise<RequestLogPage> {
    const now = this.clock.now();
    const from = command.from ?? new Date(now.getTime() - EVENTS_DEFAULT_DAYS * DAY_MS);
    const to = command.to ?? now;
    if (from > to) throw AdminErrors.range_reversed();
    const { route, status, limit, offset, domain, ip } = command;
    const rows = await this.adminStore.repos.stats.events({ from, to, route, status, limit, offset, domain, ip });
    const more = rows.length > limit;
    const items = more ? rows.slice(0, limit) : rows;
    return { items: command.forCustomer ? items.map((item) => ({ ...item, ip: networkOf(item.ip) })) : items, next_offset: more ? offset + limit : null };
  }
}
