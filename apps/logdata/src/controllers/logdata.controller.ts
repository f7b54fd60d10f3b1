import { Controller, Inject } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { type EventPayload, LogdataEvents, LogdataMessages, type MessageRequest } from '@app/contracts';
import { LogdataService } from '../services/logdata.service.js';

type Req<K extends keyof typeof LogdataMessages> = MessageRequest<(typeof LogdataMessages)[K]>;

@Controller()
export class LogdataController {
  constructor(@Inject(LogdataService) private readonly service: LogdataService) {}

  @MessagePattern(LogdataMessages.upload.pattern)
  upload(@Payload() call: Req<'upload'>) {
    return this.service.upload(call);
  }

  @MessagePattern(LogdataMessages.download.pattern)
  download(@Payload() call: Req<'download'>) {
    return this.service.download(call);
  }

  @MessagePattern(LogdataMessages.meta.pattern)
  meta(@Payload() call: Req<'meta'>) {
    return this.service.meta(call);
  }

  @MessagePattern(LogdataMessages.list.pattern)
  list(@Payload() call: Req<'list'>) {
    return this.service.list(call);
  }

  @MessagePattern(LogdataMessages.counts.pattern)
  counts(@Payload() request: Req<'counts'>) {
    return this.service.counts(request);
  }

  @EventPattern<Record<string, EventPayload<typeof LogdataEvents.downloaded>>>(LogdataEvents.downloaded.subject)
  downloaded(@Payload() event: EventPayload<typeof LogdataEvents.downloaded>) {
    return this.service.recordDownload(event);
  }
}
