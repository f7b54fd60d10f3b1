import { join } from 'node:path';
import type { ServiceConfig } from '../config/config.js';
import { FilesystemObjectStore } from './filesystem-object-store.js';
import type { ObjectStore } from './object-store.js';
import { S3ObjectStore } from './s3-object-store.js';

export { FilesystemObjectStore } from './filesystem-object-store.js';
export { S3ObjectStore, contentDisposition } from './s3-object-store.js';
export { ObjectSizeMismatchError } from './length-check.js';

const instances = new Map<string, ObjectStore>();

/**
 * S3 when S3_BUCKET is set, otherwise files under DATA_DIR/objects. One instance per
 * distinct configuration in the process (the S3 client pools its sockets).
 */
export function createObjectStore(config: ServiceConfig): ObjectStore {
  const key = config.s3 ? `s3:${JSON.stringify(config.s3)}` : `fs:${config.dataDir}`;
  let store = instances.get(key);
  if (!store) {
    store = config.s3 ? new S3ObjectStore(config.s3) : new FilesystemObjectStore(join(config.dataDir, 'objects'));
    instances.set(key, store);
  }
  return store;
}
