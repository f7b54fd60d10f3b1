import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DeviceMessages, type MessageRequest } from '@app/contracts';
import { DevicesService } from '../services/devices.service.js';

type Req<K extends keyof typeof DeviceMessages> = MessageRequest<(typeof DeviceMessages)[K]>;

/** The Devices endpoints (libs/contracts registry.endpoints.ts). */
@Controller()
export class DevicesController {
  constructor(@Inject(DevicesService) private readonly service: DevicesService) {}

  @MessagePattern(DeviceMessages.list.pattern)
  list(@Payload() call: Req<'list'>) {
    return this.service.list(call);
  }

  @MessagePattern(DeviceMessages.get.pattern)
  get(@Payload() call: Req<'get'>) {
    return this.service.get(call);
  }

  @MessagePattern(DeviceMessages.create.pattern)
  create(@Payload() call: Req<'create'>) {
    return this.service.create(call);
  }

  @MessagePattern(DeviceMessages.update.pattern)
  update(@Payload() call: Req<'update'>) {
    return this.service.update(call);
  }

  @MessagePattern(DeviceMessages.import.pattern)
  import(@Payload() call: Req<'import'>) {
    return this.service.import(call);
  }

  @MessagePattern(DeviceMessages.withdraw.pattern)
  withdraw(@Payload() call: Req<'withdraw'>) {
    return this.service.withdraw(call);
  }

  @MessagePattern(DeviceMessages.reactivate.pattern)
  reactivate(@Payload() call: Req<'reactivate'>) {
    return this.service.reactivate(call);
  }

  @MessagePattern(DeviceMessages.getTags.pattern)
  getTags(@Payload() call: Req<'getTags'>) {
    return this.service.getTags(call);
  }

  @MessagePattern(DeviceMessages.replaceTags.pattern)
  replaceTags(@Payload() call: Req<'replaceTags'>) {
    return this.service.replaceTags(call);
  }

  @MessagePattern(DeviceMessages.addTag.pattern)
  addTag(@Payload() call: Req<'addTag'>) {
    return this.service.addTag(call);
  }

  @MessagePattern(DeviceMessages.removeTag.pattern)
  removeTag(@Payload() call: Req<'removeTag'>) {
    return this.service.removeTag(call);
  }
}
