import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors, type CreatedIpBlock, type ProtectionChange } from '@app/contracts';
import { networkContains } from '@app/infra';
import { ProtectionChanges } from '../../protection/protection-changes.js';
import { AdminStore } from '../../repositories/admin.store.js';
import { blockView, type IpBlockRow } from '../../repositories/protection.repository.js';
import { Clock } from '../../services/clock.js';
import type { BlockAddressCommand } from './block-address.command.js';

/**
 * Blocks an address or network at every gateway. A network blocked again replaces its block
 * (reason, expiry, created_by, created_at): 201 either way. A network that covers the caller's
 * own address is refused (409) unless the request confirms it: an administrator would lock
 * themselves out, the console included.
 */
@Injectable()
export class BlockAddress {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(ProtectionChanges) private readonly changes: ProtectionChanges,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: BlockAddressCommand): Promise<ProtectionChange<CreatedIpBlock>> {
    const { cidr } = command.network;
    if (!command.confirmOwnAddress && networkContains(command.network, command.callerIp))
      throw AdminErrors.ip_block_own_address({ cidr, address: command.callerIp });
    const now = this.clock.now();
    const ttl = command.ttlSeconds;
    const block: IpBlockRow = {
      cidr,
      reason: command.reason,
      createdBy: command.actor,
      createdAt: now,
      expiresAt: ttl === undefined ? null : new Date(now.getTime() + ttl * 1000),
    };
    const { before, revision } = await this.adminStore.transaction((repos) => repos.protection.putBlock(block));
    const after = blockView(block);
    await this.changes.changed({
      auditActor: `admin:${command.actor}`,
      at: now,
      action: 'ip_block.create',
      targetType: 'ip_block',
      targetId: cidr,
      before: before ? blockView(before) : null,
      after,
      revision,
    });
    return this.changes.answer({ cidr, expires_at: after.expires_at, reason: after.reason });
  }
}
