import type { Readable } from 'node:stream';
import type { S3Config } from '../config/config.js';
import { S3ObjectStore } from '../object-store/s3-object-store.js';
import { ARCHIVE_NAME_PATTERN, assertArchiveName, BackupStore, newestFirst, type StoredArchive } from './backup-store.js';

/**
 * Archives in an off-site S3 bucket (BACKUP_S3_*), at the bucket's top level. Written by a
 * multipart upload of unknown length (5 MiB parts, two in flight): an archive appears under its
 * name only when the upload completes.
 */
export class S3BackupStore extends BackupStore {
  readonly kind = 's3' as const;
  readonly objects: S3ObjectStore;

  constructor(config: S3Config) {
    super();
    this.objects = new S3ObjectStore(config);
  }

  async write(name: string, body: Readable): Promise<number> {
    assertArchiveName(name);
    await this.objects.put(name, body, { contentType: 'application/octet-stream' });
    return (await this.objects.head(name))?.sizeBytes ?? 0;
  }

  read(name: string): Promise<Readable | null> {
    assertArchiveName(name);
    return this.objects.get(name);
  }

  async list(): Promise<StoredArchive[]> {
    const out: StoredArchive[] = [];
    for await (const object of this.objects.list('backup-')) {
      if (!ARCHIVE_NAME_PATTERN.test(object.key)) continue;
      const info = await this.objects.head(object.key);
      out.push({ name: object.key, bytes: info?.sizeBytes ?? 0, lastModified: object.lastModified });
    }
    return newestFirst(out);
  }

  delete(name: string): Promise<void> {
    assertArchiveName(name);
    return this.objects.delete(name);
  }
}
