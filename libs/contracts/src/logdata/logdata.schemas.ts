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
  {
    $id: 'LogFile',
    examples: [
      {
        name: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0880a00f0b51c6d51dc228b0b2b1f4fb3a510da55c0aaef2a956d7c488180d68f9',
        size_bytes: 20480,
        sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        content_type: 'application/octet-stream',
        uploaded_at: '2026-11-26T06:30:00.000Z',
        uploaded_by: 'token:6a1f0c2e-4b8d-4e3a-9c71-0d2f5b8e7a14',
        download_count: 1,
        last_accessed_at: '2026-11-26T07:00:00.000Z',
      },
    ],
  },
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
