import { Inject, Injectable } from '@nestjs/common';
import type { IpBlockView } from '@app/contracts';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';
import type { ListIpBlocksCommand } from './list-ip-blocks.command.js';

/** The IP blocks, newest first (the endpoint and the operator CLI). */
@Injectable()
export class ListIpBlocks {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: ListIpBlocksCommand): Promise<{ items: IpBlockView[] }> {
    return { items: await this.adminStore.repos.protection.listBlocks(command.all, this.clock.now()) };
  }
}
