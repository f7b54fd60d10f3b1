import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type MessageRequest, TagsMessages } from '@app/contracts';
import { TagsService } from '../tags/tags.service.js';

type Req<K extends keyof typeof TagsMessages> = MessageRequest<(typeof TagsMessages)[K]>;

@Controller()
export class TagsController {
  constructor(@Inject(TagsService) private readonly service: TagsService) {}

  @MessagePattern(TagsMessages.list.pattern)
  list(@Payload() call: Req<'list'>) {
    return this.service.list(call);
  }

  @MessagePattern(TagsMessages.rename.pattern)
  rename(@Payload() call: Req<'rename'>) {
    return this.service.rename(call);
  }

  @MessagePattern(TagsMessages.delete.pattern)
  delete(@Payload() call: Req<'delete'>) {
    return this.service.delete(call);
  }
}
