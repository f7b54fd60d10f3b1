import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { type EventPayload, type MessageRequest, RegistryEvents, RegistryMessages } from '@app/contracts';
import { DevicesService } from '../services/devices.service.js';

type Req<K extends keyof typeof RegistryMessages> = MessageRequest<(typeof RegistryMessages)[K]>;

/** What other apps ask the registry: the update check's lookup, the Tags API, admin counts, sightings. */
@Controller()
export class RegistryController {
  constructor(@Inject(DevicesService) private readonly service: DevicesService) {}

  @MessagePattern(RegistryMessages.lookupDevice.pattern)
  lookupDevice(@Payload() request: Req<'lookupDevice'>) {
    return this.service.lookup(request);
  }

  @MessagePattern(RegistryMessages.lookupDevices.pattern)
  lookupDevices(@Payload() request: Req<'lookupDevices'>) {
    return this.service.lookupMany(request);
  }

  @MessagePattern(RegistryMessages.tagCounts.pattern)
  tagCounts(@Payload() request: Req<'tagCounts'>) {
    return this.service.tagCounts(request);
  }

  @MessagePattern(RegistryMessages.renameTag.pattern)
  renameTag(@Payload() request: Req<'renameTag'>) {
    return this.service.renameTag(request);
  }

  @MessagePattern(RegistryMessages.deleteTag.pattern)
  deleteTag(@Payload() request: Req<'deleteTag'>) {
    return this.service.deleteTag(request);
  }

  @MessagePattern(RegistryMessages.counts.pattern)
  counts(@Payload() request: Req<'counts'>) {
    return this.service.counts(request);
  }

  @EventPattern<Record<string, EventPayload<typeof RegistryEvents.devicesSeen>>>(RegistryEvents.devicesSeen.subject)
  devicesSeen(@Payload() event: EventPayload<typeof RegistryEvents.devicesSeen>) {
    return this.service.devicesSeen(event);
  }
}
