import { Inject, Injectable } from '@nestjs/common';
import type { TagCounts } from '@app/contracts';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { CountTagsCommand } from './count-tags.command.js';

/** Devices per tag of a customer, sorted by tag. */
@Injectable()
export class CountTags {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(command: CountTagsCommand): Promise<TagCounts> {
    return Object.fromEntries(await this.store.repos.tags.tagCounts(command.customerId));
  }
}
