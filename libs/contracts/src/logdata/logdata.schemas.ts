import { Type, type Static } from '@sinclair/typebox';
import { CustomerQuery, Limit, NullableTimestamp, Offset, Page, Timestamp } from '../schemas.js';

export const LOGDATA_MAX_BYTES = 16 * 1024 * 1024;
export const LOGDATA_SANDBOX_MAX_BYTES = 256 * 1024;

export const LogFileName = Type.String({
  pattern: '^[0-9a-fA-F]{128}$',
  description: '128 hex characters; upper case is accepted and stored in lower case.',
  'x-error': 'log file name must be exactly 128 hex characters',
});

export const LogFile = Type.Object(
  {
    name: Type.String(),
    size_bytes: Type.Integer(),
    sha256: Type.String(),
    content_type: Type.String(),
    uploaded_at: Timestamp,
    uploaded_by: Type.String(),
    download_count: Type.Integer(),
    last_accessed_at: NullableTimestamp,
  },
  { $id: 'LogFile' },
);
export type LogFile = Static<typeof LogFile>;

export const LogFileParams = Type.Object({ name: LogFileName });
export type LogFileParams = Static<typeof LogFileParams>;

export const LogFileCustomerQuery = Type.Object({ customer: CustomerQuery });
export type LogFileCustomerQuery = Static<typeof LogFileCustomerQuery>;

export const LogFileListQuery = Type.Object({
  customer: CustomerQuery,
  prefix: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{0,128}$', 'x-error': 'prefix must be hex characters (at most 128)' })),
  uploaded_after: Type.Optional(Type.String({ format: 'date-time', 'x-error': 'uploaded_after must be an RFC 3339 timestamp' })),
  uploaded_before: Type.Optional(Type.String({ format: 'date-time', 'x-error': 'uploaded_before must be an RFC 3339 timestamp' })),
  limit: Type.Optional(Limit(500, 50)),
  offset: Type.Optional(Offset),
});
export type LogFileListQuery = Static<typeof LogFileListQuery>;

export const LogFilePage = Page(LogFile);
export type LogFilePage = Static<typeof LogFilePage>;
