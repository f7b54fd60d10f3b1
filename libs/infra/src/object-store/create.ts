import type { ServiceConfig } from '../config/config.js';
import type { ObjectStore } from './object-store.js';

/** S3 when S3_BUCKET is set, otherwise files under DATA_DIR/objects. */
export function createObjectStore(config: ServiceConfig): ObjectStore {
  throw new Error('not implemented yet');
}
