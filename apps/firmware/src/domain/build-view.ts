import { type FileRef, FirmwareEvents, type FirmwareBuild, type FirmwareDownloaded } from '@app/contracts';
import type { Build } from './build.js';

/** The API record of a build (the contract's FirmwareBuild). */
export function toFirmwareDto(build: Build): FirmwareBuild {
  return {
    id: build.id,
    fw_name: build.fwName,
    hw_name: build.hwName,
    hw_version: build.hwVersion,
    fw_version: build.fwVersion,
    fw_type: build.fwType,
    build_date: build.buildDate.toISOString(),
    tags: [...build.tags],
    tag_filter_disabled: build.tagFilterDisabled,
    status: build.status,
    general_release: build.generalRelease,
    size_bytes: build.sizeBytes,
    sha256: build.sha256,
    what_string: build.whatString,
    notes: build.notes ? { size_bytes: build.notes.sizeBytes, sha256: build.notes.sha256 } : null,
    uploaded_at: build.uploadedAt.toISOString(),
    uploaded_by: build.uploadedBy,
    updated_at: build.updatedAt.toISOString(),
    download_count: build.downloadCount,
    notes_download_count: build.notesDownloadCount,
  };
}

/**
 * The build's ETag: changes with every change of its settings or tags (the revision), not
 * with its download counters. Strong, so If-Match can use it.
 */
export function etagOf(build: Pick<Build, 'id' | 'revision'>): string {
  return `"${build.id.slice(0, 8)}-${build.revision}"`;
}

/** The revision an If-Match value names for this build; '*' matches any; null when none does. */
export function revisionFromIfMatch(header: string, build: Pick<Build, 'id' | 'revision'>): number | '*' | null {
  const current = etagOf(build);
  for (const raw of header.split(',')) {
    const value = raw.trim();
    if (value === '*') return '*';
    if (value.startsWith('W/')) continue; // If-Match compares strongly (RFC 9110 13.1.1)
    if (value === current) return build.revision;
  }
  return null;
}

export const BINARY_CONTENT_TYPE = 'application/octet-stream';
export const NOTES_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** Where the binary or notes are; downloads through the /dl link are counted by `onDownload`. */
export function toFileRef(build: Build, kind: 'binary' | 'notes'): FileRef {
  const payload: Omit<FirmwareDownloaded, 'at'> = { customerId: build.customerId, buildId: build.id, kind };
  const base = `${build.hwName}-${build.hwVersion}-${build.fwName}-${build.fwVersion}-${build.fwType}`;
  if (kind === 'notes') {
    const notes = build.notes!;
    return {
      key: notes.objectKey,
      sizeBytes: notes.sizeBytes,
      sha256: notes.sha256,
      contentType: NOTES_CONTENT_TYPE,
      lastModified: build.uploadedAt.toISOString(),
      filename: `${base}-notes.txt`,
      onDownload: { subject: FirmwareEvents.downloaded.subject, payload: { ...payload } },
    };
  }
  return {
    key: build.objectKey,
    sizeBytes: build.sizeBytes,
    sha256: build.sha256,
    contentType: BINARY_CONTENT_TYPE,
    lastModified: build.uploadedAt.toISOString(),
    filename: `${base}.bin`,
    onDownload: { subject: FirmwareEvents.downloaded.subject, payload: { ...payload } },
  };
}
