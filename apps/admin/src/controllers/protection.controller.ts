import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type MessageRequest, ProtectionMessages } from '@app/contracts';
import { ProtectionService } from '../protection/protection.service.js';

/** Maintenance mode and IP blocks: the admin API and the gateways' re-read. */
@Controller()
export class ProtectionController {
  constructor(@Inject(ProtectionService) private readonly protection: ProtectionService) {}

  @MessagePattern(ProtectionMessages.getMaintenance.pattern)
  getMaintenance() {
    return this.protection.maintenance();
  }

  @MessagePattern(ProtectionMessages.updateMaintenance.pattern)
  updateMaintenance(@Payload() call: MessageRequest<typeof ProtectionMessages.updateMaintenance>) {
    return this.protection.setMaintenance(call);
  }

  @MessagePattern(ProtectionMessages.listIpBlocks.pattern)
  listIpBlocks(@Payload() call: MessageRequest<typeof ProtectionMessages.listIpBlocks>) {
    return this.protection.listBlocks(call);
  }

  @MessagePattern(ProtectionMessages.createIpBlock.pattern)
  createIpBlock(@Payload() call: MessageRequest<typeof ProtectionMessages.createIpBlock>) {
    return this.protection.createBlock(call);
  }

  @MessagePattern(ProtectionMessages.deleteIpBlock.pattern)
  deleteIpBlock(@Payload() call: MessageRequest<typeof ProtectionMessages.deleteIpBlock>) {
    return this.protection.deleteBlock(call);
  }

  @MessagePattern(ProtectionMessages.protectionState.pattern)
  state(@Payload() request: MessageRequest<typeof ProtectionMessages.protectionState>) {
    return this.protection.state(request?.knownRevision ?? null);
  }
}
