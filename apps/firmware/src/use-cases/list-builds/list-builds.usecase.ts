import { Inject, Injectable } from '@nestjs/common';
import { type EndpointCall, type FirmwareListQuery, type FirmwarePage, requireTenant } from '@app/contracts';
import { toFirmwareDto } from '../../domain/build-view.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { ListBuildsCommand } from './list-builds.command.js';

/** GET /firmware: one page of the customer's builds, newest build_date first unless order=asc. */
@Injectable()
export class ListBuildsUseCase {
  constructor(@Inject(FirmwareStore) private readonly store: FirmwareStore) {}

  async executeForRequest(call: EndpointCall<Record<string, never>, FirmwareListQuery, undefined>): Promise<FirmwarePage> {
    return this.execute(ListBuildsCommand.create({ customer: requireTenant(call.ctx).customer, query: call.query }));
  }

  async execute(command: ListBuildsCommand): Promise<FirmwarePage> {
    const rows = await this.store.repos.builds.list({
      customerId: command.customerId,
      ...command.filter,
      order: command.order,
      limit: command.limit + 1,
      offset: command.offset,
    });
    const items = rows.slice(0, command.limit).map(toFirmwareDto);
    return { items, next_offset: rows.length > command.limit ? command.offset + items.length : null };
  }
}
