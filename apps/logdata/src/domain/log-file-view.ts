import { type FileRef, LogdataEvents, type LogFile, type LogFileDownloaded } from '@app/contracts';
import type { StoredLogFile } from './log-file.js';

/** The API record of a log file (docs/api.md, log files): RFC 3339 strings, integers as numbers. */
export function toLogFileDto(file: StoredLogFile): LogFile {
  return {
    name: file.name,
    size_bytes: file.sizeBytes,
    sha256: file.sha256,
    content_type: file.contentType,
    uploaded_at: file.uploadedAt.toISOString(),
    uploaded_by: file.uploadedBy,
    download_count: file.downloadCount,
    last_accessed_at: file.lastAccessedAt ? file.lastAccessedAt.toISOString() : null,
  };
}

/**
 * What the gateway needs to link or describe the file. The download is counted through
 * `onDownload` when a /dl link is actually served (never for HEAD, never here).
 */
export function toFileRef(file: StoredLogFile): FileRef {
  const payload: Omit<LogFileDownloaded, 'at'> = { customerId: file.customerId, name: file.name };
  return {
    key: file.objectKey,
    sizeBytes: file.sizeBytes,
    sha256: file.sha256,
    contentType: file.contentType,
    lastModified: file.uploadedAt.toISOString(),
    filename: file.name,
    onDownload: { subject: LogdataEvents.downloaded.subject, payload },
  };
}
