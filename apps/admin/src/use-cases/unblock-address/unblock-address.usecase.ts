import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors, type IpBlockView, type ProtectionChange } from '@app/contracts';
import { ProtectionChanges } from '../../protection/protection-changes.js';
import { AdminStore } from '../../repositories/admin.store.js';
import { blockView } from '../../repositories/protection.repository.js';
import { Clock } from '../../services/clock.js';
import type { UnblockAddressCommand } from './unblock-address.command.js';

/** Removes the block of a network (404 when there is none): audited and announced (ProtectionChanges). */
@Injectable()
export class UnblockAddress {
  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(ProtectionChanges) private readonly changes: ProtectionChanges,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** DELETE /admin/ip-blocks: answered with the state after the change. */
  async execute(command: UnblockAddressCommand): Promise<ProtectionChange<null>> {
    await this.lift(command);
    return this.changes.answer(null);
  }

  /** The change alone (the operator CLI): the block removed. */
  async lift(command: UnblockAddressCommand): Promise<IpBlockView> {
    const { cidr } = command;
    const removed = await this.adminStore.transaction((repos) => repos.protection.deleteBlock(cidr));
    if (!removed) throw AdminErrors.ip_block_not_found({ cidr });
    const before = blockView(removed.before);
    await this.changes.changed({
      auditActor: command.auditActor,
      at: this.clock.now(),
      action: 'ip_block.delete',
      targetType: 'ip_block',
      targetId: cidr,
      before,
      after: null,
      revision: removed.revision,
    });
    return before;
  }
}
