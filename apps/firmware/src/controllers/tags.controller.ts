import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type MessageRequest, TagsMessages } from '@app/contracts';
import { DeleteTagUseCase } from '../use-cases/delete-tag/delete-tag.usecase.js';
import { ListTagsUseCase } from '../use-cases/list-tags/list-tags.usecase.js';
import { RenameTagUseCase } from '../use-cases/rename-tag/rename-tag.usecase.js';

type Req<K extends keyof typeof TagsMessages> = MessageRequest<(typeof TagsMessages)[K]>;

/** The Tags API's messages (endpoints: libs/contracts tags.endpoints.ts). */
@Controller()
export class TagsController {
  constructor(
    @Inject(ListTagsUseCase) private readonly listTags: ListTagsUseCase,
    @Inject(RenameTagUseCase) private readonly renameTag: RenameTagUseCase,
    @Inject(DeleteTagUseCase) private readonly deleteTag: DeleteTagUseCase,
  ) {}

  @MessagePattern(TagsMessages.list.pattern)
  list(@Payload() call: Req<'list'>) {
    return this.listTags.execute(call);
  }

  @MessagePattern(TagsMessages.rename.pattern)
  rename(@Payload() call: Req<'rename'>) {
    return this.renameTag.executeForRequest(call);
  }

  @MessagePattern(TagsMessages.delete.pattern)
  delete(@Payload() call: Req<'delete'>) {
    return this.deleteTag.executeForRequest(call);
  }
}
