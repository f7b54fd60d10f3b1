import { describe, expect, it } from '@jest/globals';
import { LogdataEvents } from '@app/contracts';
import { makeLogFileEntity } from '../../test/factories.js';
import { toFileRef, toLogFileDto } from './log-file-view.js';

describe('toLogFileDto', () => {
  it('renders the API record: RFC 3339 strings, integers as numbers, null until accessed', () => {
    const entity = makeLogFileEntity({ sizeBytes: 1234, downloadCount: 0, lastAccessedAt: null });
    expect(toLogFileDto(entity)).toEqual({
      name: entity.name,
      size_bytes: 1234,
      sha256: entity.sha256,
      content_type: 'text/plain',
      uploaded_at: '2026-11-20T10:00:00.123Z',
      uploaded_by: 'token:tok-1',
      download_count: 0,
      last_accessed_at: null,
    });
  });

  it('shows last_accessed_at once accessed', () => {
    const entity = makeLogFileEntity({ downloadCount: 3, lastAccessedAt: new Date('2026-11-21T00:00:00Z') });
    expect(toLogFileDto(entity)).toMatchObject({ download_count: 3, last_accessed_at: '2026-11-21T00:00:00.000Z' });
  });
});

describe('toFileRef', () => {
  it('points at the object and asks the gateway to publish the downloaded event', () => {
    const entity = makeLogFileEntity({ objectKey: 'staging/abc', sizeBytes: 9, contentType: 'application/x-log' });
    expect(toFileRef(entity)).toEqual({
      key: 'staging/abc',
      sizeBytes: 9,
      sha256: entity.sha256,
      contentType: 'application/x-log',
      lastModified: '2026-11-20T10:00:00.123Z',
      filename: entity.name,
      onDownload: { subject: LogdataEvents.downloaded.subject, payload: { customerId: entity.customerId, name: entity.name } },
    });
  });
});
