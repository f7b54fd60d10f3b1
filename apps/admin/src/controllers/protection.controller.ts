import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type MessageRequest, ProtectionMessages } from '@app/contracts';
import { BlockAddressCommand } from '../use-cases/block-address/block-address.command.js';
import { BlockAddress } from '../use-cases/block-address/block-address.usecase.js';
import { GetMaintenance } from '../use-cases/get-maintenance/get-maintenance.usecase.js';
import { GetProtectionState } from '../use-cases/get-protection-state/get-protection-state.usecase.js';
import { ListIpBlocksCommand } from '../use-cases/list-ip-blocks/list-ip-blocks.command.js';
import { ListIpBlocks } from '../use-cases/list-ip-blocks/list-ip-blocks.usecase.js';
import { SetMaintenanceCommand } from '../use-cases/set-maintenance/set-maintenance.command.js';
import { SetMaintenance } from '../use-cases/set-maintenance/set-maintenance.usecase.js';
import { UnblockAddressCommand } from '../use-cases/unblock-address/unblock-address.command.js';
import { UnblockAddress } from '../use-cases/unblock-address/unblock-address.usecase.js';

/**
 * Maintenance mode and IP blocks: the admin API and the gateways' re-read. Handlers are async
 * so that a command refused when built answers a rejected promise.
 */
@Controller()
export class ProtectionController {
  constructor(
    @Inject(GetMaintenance) private readonly getMaintenanceSetting: GetMaintenance,
    @Inject(SetMaintenance) private readonly setMaintenance: SetMaintenance,
    @Inject(ListIpBlocks) private readonly listBlocks: ListIpBlocks,
    @Inject(BlockAddress) private readonly blockAddress: BlockAddress,
    @Inject(UnblockAddress) private readonly unblockAddress: UnblockAddress,
    @Inject(GetProtectionState) private readonly protectionState: GetProtectionState,
  ) {}

  @MessagePattern(ProtectionMessages.getMaintenance.pattern)
  async getMaintenance() {
    return this.getMaintenanceSetting.execute();
  }

  @MessagePattern(ProtectionMessages.updateMaintenance.pattern)
  async updateMaintenance(@Payload() call: MessageRequest<typeof ProtectionMessages.updateMaintenance>) {
    return this.setMaintenance.execute(SetMaintenanceCommand.create({ body: call.body, actor: call.ctx.actor }));
  }

  @MessagePattern(ProtectionMessages.listIpBlocks.pattern)
  async listIpBlocks(@Payload() call: MessageRequest<typeof ProtectionMessages.listIpBlocks>) {
    return this.listBlocks.execute(ListIpBlocksCommand.create({ query: call.query }));
  }

  @MessagePattern(ProtectionMessages.createIpBlock.pattern)
  async createIpBlock(@Payload() call: MessageRequest<typeof ProtectionMessages.createIpBlock>) {
    return this.blockAddress.execute(BlockAddressCommand.create({ ctx: call.ctx, body: call.body }));
  }

  @MessagePattern(ProtectionMessages.deleteIpBlock.pattern)
  async deleteIpBlock(@Payload() call: MessageRequest<typeof ProtectionMessages.deleteIpBlock>) {
    return this.unblockAddress.execute(UnblockAddressCommand.create({ query: call.query, actor: call.ctx.actor }));
  }

  @MessagePattern(ProtectionMessages.protectionState.pattern)
  async state(@Payload() request: MessageRequest<typeof ProtectionMessages.protectionState>) {
    return this.protectionState.execute(request?.knownRevision ?? null);
  }
}
