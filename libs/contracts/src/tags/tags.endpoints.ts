import { type AnyEndpointDef, defineEndpoint } from '../endpoints/endpoint.js';
import { Type } from '@sinclair/typebox';
import { FirmwareErrors } from '../firmware/firmware.errors.js';
import { TagsMessages } from './tags.messages.js';
import { TagChangeResult, TagCountList, TagParams, TagRenameRequest, TagsCustomerQuery } from './tags.schemas.js';

const tag = 'Tags' as const;

const PENDING =
  'Builds change at once. Devices change in the registry; when it cannot apply the change right away (briefly down), the change is retried in the background until applied and the answer is 202 with `pending: true` (`devices` null).';

export const tagEndpoints: AnyEndpointDef[] = [
  defineEndpoint({
    operationId: 'listTags',
    method: 'GET',
    path: '/tags',
    tag,
    summary: 'Tags with the number of builds and devices carrying each, sorted by tag',
    auth: { kind: 'principal', scope: 'tags:read', tenant: true },
    errorMode: 'json',
    params: Type.Object({}),
    query: TagsCustomerQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'Tag counts', schema: TagCountList } },
    errors: [FirmwareErrors.device_tag_counts_unavailable],
    target: { kind: 'message', message: TagsMessages.list, reply: (list) => ({ kind: 'json', status: 200, body: list }) },
  }),
  defineEndpoint({
    operationId: 'renameTag',
    method: 'POST',
    path: '/tags/{tag}/rename',
    tag,
    summary: 'Rename a tag on every build and device; renaming onto an existing tag merges them',
    auth: { kind: 'principal', scope: 'tags:write', tenant: true },
    errorMode: 'json',
    params: TagParams,
    query: TagsCustomerQuery,
    body: { kind: 'json', schema: TagRenameRequest, required: true },
    responses: {
      200: { description: `Applied to builds and devices. ${PENDING}`, schema: TagChangeResult },
      202: { description: 'Builds changed, devices pending (retried until applied)', schema: TagChangeResult },
    },
    errors: [FirmwareErrors.tag_name_invalid, FirmwareErrors.tag_rename_target_invalid, FirmwareErrors.device_tag_counts_unavailable],
    target: {
      kind: 'message',
      message: TagsMessages.rename,
      reply: (result) => ({ kind: 'json', status: result.pending ? 202 : 200, body: result }),
    },
  }),
  defineEndpoint({
    operationId: 'deleteTag',
    method: 'DELETE',
    path: '/tags/{tag}',
    tag,
    summary: 'Remove a tag from every build and device',
    auth: { kind: 'principal', scope: 'tags:write', tenant: true },
    errorMode: 'json',
    params: TagParams,
    query: TagsCustomerQuery,
    body: { kind: 'none' },
    responses: {
      204: { description: 'Removed from every build and device' },
      202: { description: `Removed from the builds, devices pending. ${PENDING}`, schema: TagChangeResult },
    },
    errors: [FirmwareErrors.tag_name_invalid],
    target: {
      kind: 'message',
      message: TagsMessages.delete,
      reply: (result) => (result.pending ? { kind: 'json', status: 202, body: result } : { kind: 'empty', status: 204 }),
    },
  }),
];
