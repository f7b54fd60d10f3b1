import { Inject, Injectable } from '@nestjs/common';
import {
  BuildTagList,
  type EndpointCall,
  type FirmwareCustomerQuery,
  FirmwareErrors,
  type FirmwareIdParams,
  type FirmwareTagParams,
  MAX_TAGS_PER_BUILD,
  requireTenant,
  TagName,
  type TagSet,
} from '@app/contracts';
import { contractCheck } from '@app/platform';
import type { BuildChanges } from '../../domain/build-changes.js';
import type { Build } from '../../domain/build.js';
import { ChangeBuildUseCase } from '../change-build/change-build.usecase.js';

const validTags = contractCheck(BuildTagList);
const validTag = contractCheck(TagName);

type TagCall = EndpointCall<FirmwareTagParams, FirmwareCustomerQuery, undefined>;

/** The tags of one build: PUT /firmware/{id}/tags (the whole set), POST and DELETE /firmware/{id}/tags/{tag}. */
@Injectable()
export class BuildTagsUseCase {
  constructor(@Inject(ChangeBuildUseCase) private readonly changeBuild: ChangeBuildUseCase) {}

  async replace(call: EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, TagSet>): Promise<TagSet> {
    const ctx = requireTenant(call.ctx);
    const tags = [...new Set(validTags(call.body?.tags))];
    const { build } = await this.changeBuild.execute(ctx, { id: String(call.params?.id ?? ''), changes: { tags } }, 'firmware.tags.replace');
    return { tags: build.tags };
  }

  async add(call: TagCall): Promise<void> {
    const ctx = requireTenant(call.ctx);
    const tag = validTag(call.params?.tag);
    const changes = (current: Build): BuildChanges => {
      if (current.tags.includes(tag)) return {};
      if (current.tags.length >= MAX_TAGS_PER_BUILD) throw FirmwareErrors.build_tags_too_many();
      return { tags: [...current.tags, tag] };
    };
    await this.changeBuild.execute(ctx, { id: String(call.params?.id ?? ''), changes }, 'firmware.tags.add');
  }

  /** Any tag value: there is nothing to remove for one that cannot exist. */
  async remove(call: TagCall): Promise<void> {
    const ctx = requireTenant(call.ctx);
    const tag = String(call.params?.tag ?? '');
    const changes = (current: Build): BuildChanges => (current.tags.includes(tag) ? { tags: current.tags.filter((t) => t !== tag) } : {});
    await this.changeBuild.execute(ctx, { id: String(call.params?.id ?? ''), changes }, 'firmware.tags.remove');
  }
}
