import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  type DeviceAudience,
  type DeviceLookup,
  type DeviceProfile,
  type EventPayload,
  type MessageRequest,
  RegistryEvents,
  RegistryMessages,
  type TagCounts,
} from '@app/contracts';
import { CountDevicesCommand } from '../use-cases/count-devices/count-devices.command.js';
import { CountDevices } from '../use-cases/count-devices/count-devices.usecase.js';
import { CountTagsCommand } from '../use-cases/count-tags/count-tags.command.js';
import { CountTags } from '../use-cases/count-tags/count-tags.usecase.js';
import { DeleteTagCommand } from '../use-cases/delete-tag/delete-tag.command.js';
import { DeleteTag } from '../use-cases/delete-tag/delete-tag.usecase.js';
import { EraseCustomer } from '../use-cases/erase-customer/erase-customer.usecase.js';
import { FindAudienceCommand } from '../use-cases/find-audience/find-audience.command.js';
import { FindAudience } from '../use-cases/find-audience/find-audience.usecase.js';
import { LookupDevicesCommand } from '../use-cases/lookup-devices/lookup-devices.command.js';
import { LookupDevices } from '../use-cases/lookup-devices/lookup-devices.usecase.js';
import { RecordSightingsCommand } from '../use-cases/record-sightings/record-sightings.command.js';
import { RecordSightings } from '../use-cases/record-sightings/record-sightings.usecase.js';
import { RenameTagCommand } from '../use-cases/rename-tag/rename-tag.command.js';
import { RenameTag } from '../use-cases/rename-tag/rename-tag.usecase.js';

type Req<K extends keyof typeof RegistryMessages> = MessageRequest<(typeof RegistryMessages)[K]>;

/** What other apps ask the registry: the update check's lookup, the Tags API, admin counts, sightings (async handlers: see DevicesController). */
@Controller()
export class RegistryController {
  constructor(
    @Inject(LookupDevices) private readonly lookupDevicesUseCase: LookupDevices,
    @Inject(CountTags) private readonly countTags: CountTags,
    @Inject(RenameTag) private readonly renameTagUseCase: RenameTag,
    @Inject(DeleteTag) private readonly deleteTagUseCase: DeleteTag,
    @Inject(CountDevices) private readonly countDevices: CountDevices,
    @Inject(RecordSightings) private readonly recordSightings: RecordSightings,
    @Inject(EraseCustomer) private readonly eraseCustomerData: EraseCustomer,
    @Inject(FindAudience) private readonly findAudience: FindAudience,
  ) {}

  @MessagePattern(RegistryMessages.deviceProfile.pattern)
  async deviceProfile(@Payload() request: Req<'deviceProfile'>): Promise<DeviceProfile | null> {
    return this.lookupDevicesUseCase.profile(LookupDevicesCommand.one(request));
  }

  @MessagePattern(RegistryMessages.audience.pattern)
  async audience(@Payload() request: Req<'audience'>): Promise<DeviceAudience> {
    return this.findAudience.execute(FindAudienceCommand.create(request));
  }

  @MessagePattern(RegistryMessages.lookupDevice.pattern)
  async lookupDevice(@Payload() request: Req<'lookupDevice'>): Promise<DeviceLookup | null> {
    return this.lookupDevicesUseCase.one(LookupDevicesCommand.one(request));
  }

  @MessagePattern(RegistryMessages.lookupDevices.pattern)
  async lookupDevices(@Payload() request: Req<'lookupDevices'>): Promise<(DeviceLookup | null)[]> {
    return this.lookupDevicesUseCase.many(LookupDevicesCommand.many(request));
  }

  @MessagePattern(RegistryMessages.tagCounts.pattern)
  async tagCounts(@Payload() request: Req<'tagCounts'>): Promise<TagCounts> {
    return this.countTags.execute(CountTagsCommand.create(request));
  }

  @MessagePattern(RegistryMessages.renameTag.pattern)
  async renameTag(@Payload() request: Req<'renameTag'>): Promise<{ devices: number }> {
    return this.renameTagUseCase.execute(RenameTagCommand.create(request));
  }

  @MessagePattern(RegistryMessages.deleteTag.pattern)
  async deleteTag(@Payload() request: Req<'deleteTag'>): Promise<{ devices: number }> {
    return this.deleteTagUseCase.execute(DeleteTagCommand.create(request));
  }

  @MessagePattern(RegistryMessages.counts.pattern)
  async counts(@Payload() request: Req<'counts'>): Promise<Record<string, { devices: number; tags: string[] }>> {
    return this.countDevices.execute(CountDevicesCommand.create(request));
  }

  @MessagePattern(RegistryMessages.eraseCustomer.pattern)
  eraseCustomer(@Payload() request: Req<'eraseCustomer'>) {
    return this.eraseCustomerData.execute(request);
  }

  @EventPattern<Record<string, EventPayload<typeof RegistryEvents.devicesSeen>>>(RegistryEvents.devicesSeen.subject)
  async devicesSeen(@Payload() event: EventPayload<typeof RegistryEvents.devicesSeen>): Promise<void> {
    await this.recordSightings.execute(RecordSightingsCommand.create(event));
  }
}
