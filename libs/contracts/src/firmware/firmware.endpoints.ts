import { Type } from '@sinclair/typebox';
import { type AnyEndpointDef, defineEndpoint, type HttpReply, type MultipartPart, type ReplyContext } from '../endpoints/endpoint.js';
import { CommonErrors } from '../errors/common.errors.js';
import { FirmwareErrors } from './firmware.errors.js';
import { FirmwareMessages, type FirmwareUploadResult, type UpdateCheckResult } from './firmware.messages.js';
import {
  BUILD_ID_PATTERN,
  FIRMWARE_NOTES_MAX_BYTES,
  FirmwareBuild,
  FirmwareCustomerQuery,
  FirmwareIdParams,
  FirmwareListQuery,
  FirmwarePage,
  FirmwarePatch,
  FirmwareTagDeleteParams,
  GeneralReleaseSetting,
  FirmwareTagParams,
  FirmwareUploadPathParams,
  FirmwareUploadQuery,
  ParseResult,
  TagSet,
  UpdateCheckHwidParams,
  UpdateCheckParams,
  UpdateCheckQuery,
  UpdateItem,
} from './firmware.schemas.js';
import { NoParams } from '../schemas.js';

const tag = 'Firmware' as const;

const firmwarePart: MultipartPart = {
  required: true,
  maxBytes: (limits) => limits.firmwareMaxBytes,
  description: 'The binary (at most FIRMWARE_MAX_BYTES, default 512 MiB), with a what string `@(#)<fw_version>, <build_date>, <fw_type>`.',
};
const notesPart: MultipartPart = {
  required: false,
  maxBytes: () => FIRMWARE_NOTES_MAX_BYTES,
  description: `Release notes, text (at most ${FIRMWARE_NOTES_MAX_BYTES} bytes); served as text/plain; charset=utf-8.`,
};

const UPLOAD_DESCRIPTION = [
  'multipart/form-data with the parts `firmware` (required) and `notes` (optional); other parts are ignored.',
  'Values: path, then query, then the chosen what string (`what_index`, default 0). A path value and a different query value: 400.',
  'A query fw_version, build_date or fw_type that contradicts the what string: 422. No what string and no fw_version, what_index out of range,',
  'or a what string that is not `<fw_version>, <build_date>, <fw_type>`: 422. hw_name, hw_version or fw_name missing: 400.',
  'Without a what string, fw_type defaults to AFI and build_date to the upload time.',
  'A build is identified by hw_name, hw_version, fw_name, fw_version and fw_type: the same identity with other bytes is 409,',
  'with the same bytes an identical re-upload (nothing changes, also not the notes or general_release).',
].join(' ');

function uploadReply(result: FirmwareUploadResult, ctx: ReplyContext): HttpReply {
  if (!ctx.json) return { kind: 'text', status: 200, body: 'OK' };
  return result.created
    ? { kind: 'json', status: 201, body: result.build, headers: { Location: `${ctx.baseUrl}/firmware/${result.build.id}` } }
    : { kind: 'json', status: 200, body: result.build };
}

const uploadResponses = {
  200: { description: 'Stored (text `OK`), or in JSON mode the stored record of an identical re-upload', schema: FirmwareBuild },
  201: { description: 'JSON mode: a new build was stored', schema: FirmwareBuild, headers: { Location: 'URL of the build' } },
};

function upload(operationId: string, path: string, withParams: boolean) {
  return defineEndpoint({
    operationId,
    method: 'PUT',
    path,
    tag,
    summary: withParams ? 'Upload a firmware build (hw_name, hw_version, fw_name from the path)' : 'Upload a firmware build',
    auth: { kind: 'principal', scope: 'fw:write', tenant: true },
    errorMode: 'text',
    params: withParams ? FirmwareUploadPathParams : NoParams,
    query: FirmwareUploadQuery,
    body: { kind: 'multipart', parts: { firmware: firmwarePart, notes: notesPart }, description: UPLOAD_DESCRIPTION },
    responses: uploadResponses,
    errors: [
      FirmwareErrors.build_value_mismatch,
      FirmwareErrors.build_value_missing,
      FirmwareErrors.upload_part_invalid,
      FirmwareErrors.build_date_out_of_range,
      CommonErrors.uploader_unknown,
      FirmwareErrors.build_conflict,
      FirmwareErrors.what_index_out_of_range,
      FirmwareErrors.what_index_beyond_read,
      FirmwareErrors.what_string_missing,
      FirmwareErrors.what_string_unparsable,
      FirmwareErrors.what_string_contradicted,
      FirmwareErrors.firmware_unreadable,
      FirmwareErrors.build_upload_incomplete,
    ],
    target: { kind: 'message', message: FirmwareMessages.upload, reply: uploadReply },
  });
}

const CACHE_NOTE = 'Carries an ETag (over the builds listed) and Cache-Control max-age; the links stay valid longer than max-age.';

/** Poll-After: the app's advice (with its jitter) stretched by the gateway's load (docs/api.md "When to check again"). */
function updateCheckReply(result: UpdateCheckResult, ctx: ReplyContext): HttpReply {
  const pollAfter = String(Math.ceil(result.pollAfterSeconds * ctx.pollStretch));
  if (result.kind === 'not-modified')
    return { kind: 'not-modified', headers: { ETag: result.etag, 'Cache-Control': `max-age=${result.maxAgeSeconds}`, 'Poll-After': pollAfter } };
  const signed = result.signature;
  return {
    kind: 'text',
    status: 200,
    body: result.body,
    contentType: 'application/json',
    headers: {
      ETag: result.etag,
      'Cache-Control': `max-age=${result.maxAgeSeconds}`,
      'Poll-After': pollAfter,
      'Content-Digest': signed.contentDigest,
      'Signature-Input': signed.signatureInput,
      Signature: signed.signature,
    },
  };
}

const POLL_AFTER = "Seconds the device should wait before its next check (the customer's interval with jitter, longer under load)";

function updateCheck(operationId: string, path: string, withHwid: boolean) {
  return defineEndpoint({
    operationId,
    method: 'GET',
    path,
    tag,
    summary: withHwid ? 'Update check of a device (public): builds newer than fw_version for it' : 'Update check (public): builds newer than fw_version',
    auth: { kind: 'public' },
    errorMode: 'text',
    params: withHwid ? UpdateCheckHwidParams : UpdateCheckParams,
    query: UpdateCheckQuery,
    body: { kind: 'none' },
    forwardHeaders: ['if-none-match'],
    forwardTarget: true,
    rateLimit: { bucket: 'update-check', scope: 'ip', setting: 'updateCheckRatePerMinute' },
    responses: {
      200: {
        description: `Update items, oldest newer build first: active builds of hw_name/hw_version/fw_name of the types asked for, newer than fw_version, that are general releases or (a known, active device named by hwid) share a tag with the device or have tag_filter_disabled. ${CACHE_NOTE}`,
        schema: Type.Array(UpdateItem),
        headers: {
          ETag: 'Validator of the list',
          'Cache-Control': 'max-age',
          'Poll-After': POLL_AFTER,
          'Content-Digest': 'sha-256 of the body (RFC 9530)',
          'Signature-Input': 'RFC 9421 signature parameters (label fds): "@status" "content-digest" "@path";req "@query";req, created, expires, keyid, alg',
          Signature: 'Ed25519 signature (RFC 9421) by an update- key of /.well-known/jwks.json',
        },
      },
      304: { description: 'If-None-Match matched the current ETag: no body', headers: { 'Poll-After': POLL_AFTER } },
      429: {
        description:
          'More than UPDATE_CHECK_RATE_PER_MINUTE (default 300) update checks in a minute from this address (counted per gateway process); a text line, or problem+json with Accept: application/json',
        headers: { 'Retry-After': 'Seconds until the address may check again' },
      },
    },
    // Public: the customer is named by the path, not by credentials, so its 404 is listed here.
    errors: [FirmwareErrors.update_check_invalid, CommonErrors.customer_not_found, FirmwareErrors.builds_unavailable],
    target: { kind: 'message', message: FirmwareMessages.updateCheck, reply: updateCheckReply },
  });
}

export const firmwareEndpoints: AnyEndpointDef[] = [
  upload('uploadFirmware', '/firmware', false),
  upload('uploadFirmwareTrailingSlash', '/firmware/', false),
  upload('uploadFirmwareByPath', '/firmware/{hw_name}/{hw_version}/{fw_name}', true),
  defineEndpoint({
    operationId: 'listFirmware',
    method: 'GET',
    path: '/firmware',
    tag,
    summary: 'List builds: by build_date, then version, then id, descending unless order=asc',
    auth: { kind: 'principal', scope: 'fw:read', tenant: true },
    errorMode: 'json',
    params: NoParams,
    query: FirmwareListQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'A page of builds', schema: FirmwarePage } },
    errors: [],
    target: { kind: 'message', message: FirmwareMessages.list, reply: (page) => ({ kind: 'json', status: 200, body: page }) },
  }),
  defineEndpoint({
    operationId: 'parseFirmware',
    method: 'POST',
    path: '/firmware/parse',
    tag,
    summary: 'Dry run: the what strings of a binary (nothing is stored)',
    auth: { kind: 'principal', scope: 'fw:read', tenant: true },
    errorMode: 'json',
    allowedInMaintenance: true,
    params: NoParams,
    query: FirmwareCustomerQuery,
    body: {
      kind: 'multipart',
      parts: { firmware: firmwarePart },
      description: 'multipart/form-data with the part `firmware` (required); other parts are ignored.',
    },
    responses: { 200: { description: 'What was found', schema: ParseResult } },
    errors: [FirmwareErrors.parse_part_invalid, FirmwareErrors.firmware_unreadable],
    target: { kind: 'message', message: FirmwareMessages.parse, reply: (result) => ({ kind: 'json', status: 200, body: result }) },
  }),
  defineEndpoint({
    operationId: 'getFirmware',
    method: 'GET',
    path: '/firmware/{id}',
    tag,
    summary: 'A build, with its ETag',
    auth: { kind: 'principal', scope: 'fw:read', tenant: true },
    errorMode: 'json',
    params: FirmwareIdParams,
    query: FirmwareCustomerQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'The build', schema: FirmwareBuild, headers: { ETag: 'Current version of the build, for If-Match' } } },
    errors: [FirmwareErrors.build_not_found],
    target: { kind: 'message', message: FirmwareMessages.get, reply: (r) => ({ kind: 'json', status: 200, body: r.build, headers: { ETag: r.etag } }) },
  }),
  defineEndpoint({
    operationId: 'updateFirmware',
    method: 'PATCH',
    path: '/firmware/{id}',
    tag,
    summary: 'Change tags, tag_filter_disabled or status (withdraw, reactivate); If-Match optional (412 when stale)',
    auth: { kind: 'principal', scope: 'fw:write', tenant: true },
    errorMode: 'json',
    params: FirmwareIdParams,
    query: FirmwareCustomerQuery,
    body: { kind: 'json', schema: FirmwarePatch, required: true },
    forwardHeaders: ['if-match'],
    responses: { 200: { description: 'The updated build', schema: FirmwareBuild, headers: { ETag: 'The new version' } } },
    errors: [FirmwareErrors.build_not_found, FirmwareErrors.build_etag_mismatch],
    target: { kind: 'message', message: FirmwareMessages.update, reply: (r) => ({ kind: 'json', status: 200, body: r.build, headers: { ETag: r.etag } }) },
  }),
  defineEndpoint({
    operationId: 'setFirmwareGeneralRelease',
    method: 'PUT',
    path: '/firmware/{id}/general-release',
    tag,
    summary: 'Make the build a general release (offered to every caller of its product line) or take that back; If-Match optional (412 when stale)',
    auth: { kind: 'principal', scope: 'fw:write', tenant: true },
    errorMode: 'json',
    params: FirmwareIdParams,
    query: FirmwareCustomerQuery,
    body: { kind: 'json', schema: GeneralReleaseSetting, required: true },
    forwardHeaders: ['if-match'],
    routeWhen: { id: BUILD_ID_PATTERN },
    responses: { 200: { description: 'The updated build', schema: FirmwareBuild, headers: { ETag: 'The new version' } } },
    errors: [FirmwareErrors.build_not_found, FirmwareErrors.build_etag_mismatch],
    target: {
      kind: 'message',
      message: FirmwareMessages.setGeneralRelease,
      reply: (r) => ({ kind: 'json', status: 200, body: r.build, headers: { ETag: r.etag } }),
    },
  }),
  defineEndpoint({
    operationId: 'downloadFirmwareBinary',
    method: 'GET',
    path: '/firmware/{id}/binary',
    tag,
    summary: 'Download the binary (302 to a 5-minute /dl link, application/octet-stream)',
    auth: { kind: 'principal', scope: 'fw:read', tenant: true },
    errorMode: 'json',
    params: FirmwareIdParams,
    query: FirmwareCustomerQuery,
    body: { kind: 'none' },
    responses: { 302: { description: 'Redirect to a signed download link valid for 5 minutes' } },
    errors: [FirmwareErrors.build_not_found],
    target: { kind: 'message', message: FirmwareMessages.binary, reply: (file) => ({ kind: 'download-link', file }) },
  }),
  defineEndpoint({
    operationId: 'downloadFirmwareNotes',
    method: 'GET',
    path: '/firmware/{id}/notes',
    tag,
    summary: 'Download the release notes (302 to a 5-minute /dl link, text/plain; charset=utf-8); 404 without notes',
    auth: { kind: 'principal', scope: 'fw:read', tenant: true },
    errorMode: 'json',
    params: FirmwareIdParams,
    query: FirmwareCustomerQuery,
    body: { kind: 'none' },
    responses: { 302: { description: 'Redirect to a signed download link valid for 5 minutes' } },
    errors: [FirmwareErrors.build_not_found, FirmwareErrors.build_notes_not_found],
    target: { kind: 'message', message: FirmwareMessages.notes, reply: (file) => ({ kind: 'download-link', file }) },
  }),
  defineEndpoint({
    operationId: 'getFirmwareTags',
    method: 'GET',
    path: '/firmware/{id}/tags',
    tag,
    summary: 'Tags of a build',
    auth: { kind: 'principal', scope: 'fw:read', tenant: true },
    errorMode: 'json',
    params: FirmwareIdParams,
    query: FirmwareCustomerQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'The tags, sorted', schema: TagSet } },
    errors: [FirmwareErrors.build_not_found],
    target: { kind: 'message', message: FirmwareMessages.getTags, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'replaceFirmwareTags',
    method: 'PUT',
    path: '/firmware/{id}/tags',
    tag,
    summary: 'Replace the tags of a build',
    auth: { kind: 'principal', scope: 'tags:write', tenant: true },
    errorMode: 'json',
    params: FirmwareIdParams,
    query: FirmwareCustomerQuery,
    body: { kind: 'json', schema: TagSet, required: true },
    responses: { 200: { description: 'The new tags, sorted', schema: TagSet } },
    errors: [FirmwareErrors.build_not_found, FirmwareErrors.build_tags_too_many],
    target: { kind: 'message', message: FirmwareMessages.replaceTags, reply: (r) => ({ kind: 'json', status: 200, body: r }) },
  }),
  defineEndpoint({
    operationId: 'addFirmwareTag',
    method: 'PUT',
    path: '/firmware/{id}/tags/{tag}',
    tag,
    summary: 'Add a tag to a build (idempotent). Only when {id} is a build id; otherwise the path is the upload path form',
    auth: { kind: 'principal', scope: 'tags:write', tenant: true },
    errorMode: 'json',
    params: FirmwareTagParams,
    query: FirmwareCustomerQuery,
    body: { kind: 'none' },
    routeWhen: { id: BUILD_ID_PATTERN },
    responses: { 204: { description: 'The build carries the tag' } },
    errors: [FirmwareErrors.build_not_found, FirmwareErrors.build_tags_too_many],
    target: { kind: 'message', message: FirmwareMessages.addTag, reply: () => ({ kind: 'empty', status: 204 }) },
  }),
  defineEndpoint({
    operationId: 'removeFirmwareTag',
    method: 'DELETE',
    path: '/firmware/{id}/tags/{tag}',
    tag,
    summary: 'Remove a tag from a build (idempotent)',
    auth: { kind: 'principal', scope: 'tags:write', tenant: true },
    errorMode: 'json',
    params: FirmwareTagDeleteParams,
    query: FirmwareCustomerQuery,
    body: { kind: 'none' },
    routeWhen: { id: BUILD_ID_PATTERN },
    responses: { 204: { description: 'The build does not carry the tag' } },
    errors: [FirmwareErrors.build_not_found],
    target: { kind: 'message', message: FirmwareMessages.removeTag, reply: () => ({ kind: 'empty', status: 204 }) },
  }),
  updateCheck('checkForUpdates', '/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}', false),
  updateCheck('checkForDeviceUpdates', '/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}/{hwid}', true),
];
