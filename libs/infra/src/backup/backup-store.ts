import type { Readable } from 'node:stream';

/** One archive as the store lists it. */
export interface StoredArchive {
  readonly name: string;
  readonly bytes: number;
  readonly lastModified: Date;
}

/**
 * Where backup archives are kept (docs/operations.md "Backups and restores"). Adapters: a
 * directory (`local`, BACKUP_DIR) and an off-site S3 bucket (`s3`, BACKUP_S3_*), separate from
 * the files' object store. Archive names are `backup-<UTC timestamp>-<short id>.age`.
 */
export abstract class BackupStore {
  abstract readonly kind: 'local' | 's3';

  /** Streams an archive of unknown length into place; readers never see a partial archive under its name. Resolves with its size. */
  abstract write(name: string, body: Readable): Promise<number>;

  /** The archive's bytes; null when there is none by that name. */
  abstract read(name: string): Promise<Readable | null>;

  /** Every archive, newest name first (the names sort by time). */
  abstract list(): Promise<StoredArchive[]>;

  /** Idempotent. */
  abstract delete(name: string): Promise<void>;
}

/** `backup-20261126T181500Z-3f9a2c1b.age`: UTC time to the second, then the first 8 hex digits of the run id. */
export const ARCHIVE_NAME_PATTERN = /^backup-\d{8}T\d{6}Z-[0-9a-f]{8}\.age$/;

export function archiveName(createdAt: Date, runId: string): string {
  const stamp = createdAt
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `backup-${stamp}-${runId.replace(/-/g, '').slice(0, 8)}.age`;
}

export function assertArchiveName(name: string): void {
  if (!ARCHIVE_NAME_PATTERN.test(name)) throw new Error(`invalid archive name: ${JSON.stringify(name)}`);
}

/** Newest first: the names start with the UTC time. */
export function newestFirst(archives: StoredArchive[]): StoredArchive[] {
  return archives.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}
