import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { type EventPayload, FirmwareEvents, FirmwareMessages, type MessageRequest } from '@app/contracts';
import { FirmwareService } from '../services/firmware.service.js';

type Req<K extends keyof typeof FirmwareMessages> = MessageRequest<(typeof FirmwareMessages)[K]>;

@Controller()
export class FirmwareController {
  constructor(@Inject(FirmwareService) private readonly service: FirmwareService) {}

  @MessagePattern(FirmwareMessages.upload.pattern)
  upload(@Payload() call: Req<'upload'>) {
    return this.service.upload(call);
  }

  @MessagePattern(FirmwareMessages.parse.pattern)
  parse(@Payload() call: Req<'parse'>) {
    return this.service.parse(call);
  }

  @MessagePattern(FirmwareMessages.list.pattern)
  list(@Payload() call: Req<'list'>) {
    return this.service.list(call);
  }

  @MessagePattern(FirmwareMessages.get.pattern)
  get(@Payload() call: Req<'get'>) {
    return this.service.get(call);
  }

  @MessagePattern(FirmwareMessages.update.pattern)
  update(@Payload() call: Req<'update'>) {
    return this.service.update(call);
  }

  @MessagePattern(FirmwareMessages.binary.pattern)
  binary(@Payload() call: Req<'binary'>) {
    return this.service.binary(call);
  }

  @MessagePattern(FirmwareMessages.notes.pattern)
  notes(@Payload() call: Req<'notes'>) {
    return this.service.notes(call);
  }

  @MessagePattern(FirmwareMessages.getTags.pattern)
  getTags(@Payload() call: Req<'getTags'>) {
    return this.service.getTags(call);
  }

  @MessagePattern(FirmwareMessages.replaceTags.pattern)
  replaceTags(@Payload() call: Req<'replaceTags'>) {
    return this.service.replaceTags(call);
  }

  @MessagePattern(FirmwareMessages.addTag.pattern)
  addTag(@Payload() call: Req<'addTag'>) {
    return this.service.addTag(call);
  }

  @MessagePattern(FirmwareMessages.removeTag.pattern)
  removeTag(@Payload() call: Req<'removeTag'>) {
    return this.service.removeTag(call);
  }

  @MessagePattern(FirmwareMessages.counts.pattern)
  counts(@Payload() request: Req<'counts'>) {
    return this.service.counts(request);
  }

  @EventPattern<Record<string, EventPayload<typeof FirmwareEvents.downloaded>>>(FirmwareEvents.downloaded.subject)
  downloaded(@Payload() event: EventPayload<typeof FirmwareEvents.downloaded>) {
    return this.service.recordDownload(event);
  }
}
