import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoints/endpoint.js';
import { LogdataErrors } from './logdata.errors.js';
import { LogdataMessages } from './logdata.messages.js';
import {
  LOGDATA_MAX_BYTES,
  LOGDATA_SANDBOX_MAX_BYTES,
  LogFile,
  LogFileCustomerQuery,
  LogFileListQuery,
  LogFilePage,
  LogFileParams,
} from './logdata.schemas.js';

const tag = 'Log data' as const;

export const logdataEndpoints = [
  defineEndpoint({
    operationId: 'uploadLogFile',
    method: 'PUT',
    path: '/logdata/{name}',
    tag,
    summary: 'Upload a write-once log file',
    auth: { kind: 'principal', scope: 'logdata:write', tenant: true },
    errorMode: 'text',
    params: LogFileParams,
    query: LogFileCustomerQuery,
    body: {
      kind: 'stream',
      maxBytes: (customer) => (customer.isSandbox ? LOGDATA_SANDBOX_MAX_BYTES : LOGDATA_MAX_BYTES),
      description: `The file (at most ${LOGDATA_MAX_BYTES} bytes; ${LOGDATA_SANDBOX_MAX_BYTES} in the sandbox). Content-Type is stored and returned on download.`,
    },
    responses: {
      200: { description: 'Stored (text `OK`), or in JSON mode the record of an identical re-upload', schema: LogFile },
      201: { description: 'JSON mode: a new file was stored', schema: LogFile, headers: { Location: 'URL of the file' } },
    },
    errors: [
      LogdataErrors.log_file_body_missing,
      LogdataErrors.log_file_size_invalid,
      LogdataErrors.log_file_checksum_invalid,
      LogdataErrors.log_file_conflict,
      LogdataErrors.log_file_too_large,
      LogdataErrors.log_file_upload_incomplete,
    ],
    target: {
      kind: 'message',
      message: LogdataMessages.upload,
      reply: (result, ctx) => {
        if (!ctx.json) return { kind: 'text', status: 200, body: 'OK' };
        return result.created
          ? { kind: 'json', status: 201, body: result.file, headers: { Location: `${ctx.baseUrl}/logdata/${result.file.name}` } }
          : { kind: 'json', status: 200, body: result.file };
      },
    },
  }),
  defineEndpoint({
    operationId: 'downloadLogFile',
    method: 'GET',
    path: '/logdata/{name}',
    tag,
    summary: 'Download a log file (302 to a 5-minute /dl link)',
    auth: { kind: 'principal', scope: 'logdata:read', tenant: true },
    errorMode: 'text',
    params: LogFileParams,
    query: LogFileCustomerQuery,
    body: { kind: 'none' },
    responses: { 302: { description: 'Redirect to a signed download link valid for 5 minutes' } },
    errors: [LogdataErrors.log_file_not_found],
    target: { kind: 'message', message: LogdataMessages.download, reply: (file) => ({ kind: 'download-link', file }) },
  }),
  defineEndpoint({
    operationId: 'headLogFile',
    method: 'HEAD',
    path: '/logdata/{name}',
    tag,
    summary: 'Log file headers: Content-Length, Content-Type, ETag (quoted SHA-256), Last-Modified',
    auth: { kind: 'principal', scope: 'logdata:read', tenant: true },
    errorMode: 'text',
    params: LogFileParams,
    query: LogFileCustomerQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'The file exists' } },
    errors: [LogdataErrors.log_file_not_found],
    target: { kind: 'message', message: LogdataMessages.download, reply: (file) => ({ kind: 'file-head', file }) },
  }),
  defineEndpoint({
    operationId: 'getLogFileMeta',
    method: 'GET',
    path: '/logdata/{name}/meta',
    tag,
    summary: 'Log file metadata',
    auth: { kind: 'principal', scope: 'logdata:read', tenant: true },
    errorMode: 'json',
    params: LogFileParams,
    query: LogFileCustomerQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'The log file record', schema: LogFile } },
    errors: [LogdataErrors.log_file_not_found],
    target: { kind: 'message', message: LogdataMessages.meta, reply: (file) => ({ kind: 'json', status: 200, body: file }) },
  }),
  defineEndpoint({
    operationId: 'listLogFiles',
    method: 'GET',
    path: '/logdata',
    tag,
    summary: 'List log files, sorted by name',
    auth: { kind: 'principal', scope: 'logdata:read', tenant: true },
    errorMode: 'json',
    params: Type.Object({}),
    query: LogFileListQuery,
    body: { kind: 'none' },
    responses: { 200: { description: 'A page of log files', schema: LogFilePage } },
    errors: [],
    target: { kind: 'message', message: LogdataMessages.list, reply: (page) => ({ kind: 'json', status: 200, body: page }) },
  }),
];
