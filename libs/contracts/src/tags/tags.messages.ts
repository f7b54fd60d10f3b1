import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineMessage } from '../messages/message.js';
import type { TagChangeResult, TagCountList, TagParams, TagRenameRequest, TagsCustomerQuery } from './tags.schemas.js';
import type { NoParams } from '../schemas.js';

/**
 * The Tags API, owned by the firmware app: builds are its own, devices are changed through
 * RegistryMessages.renameTag/deleteTag (retried through the job queue until applied).
 */
export const TagsMessages = {
  list: defineMessage<EndpointCall<NoParams, TagsCustomerQuery, undefined>, TagCountList>('firmware.tags.counts'),
  rename: defineMessage<EndpointCall<TagParams, TagsCustomerQuery, TagRenameRequest>, TagChangeResult>('firmware.tags.rename', { timeoutMs: 30_000 }),
  delete: defineMessage<EndpointCall<TagParams, TagsCustomerQuery, undefined>, TagChangeResult>('firmware.tags.delete', { timeoutMs: 30_000 }),
} as const;
