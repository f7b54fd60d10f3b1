import type { ServiceConfig } from '../config/config.js';
import type { BackupStore } from './backup-store.js';
import { LocalBackupStore } from './local-backup-store.js';
import { S3BackupStore } from './s3-backup-store.js';

export { LocalBackupStore } from './local-backup-store.js';
export { S3BackupStore } from './s3-backup-store.js';

/** The off-site bucket when BACKUP_S3_BUCKET is set, otherwise the directory BACKUP_DIR. */
export function createBackupStore(config: ServiceConfig): BackupStore {
  return config.backup.s3 ? new S3BackupStore(config.backup.s3) : new LocalBackupStore(config.backup.dir);
}
