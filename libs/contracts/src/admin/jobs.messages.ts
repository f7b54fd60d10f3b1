import type { EndpointCall } from '../endpoints/endpoint.js';
import { defineMessage } from '../messages/message.js';
import type { JobsQuery, JobView } from './jobs.schemas.js';

/** The background jobs of both runtimes, answered by the admin app (it reads the job queue directly). */
export const JobMessages = {
  list: defineMessage<EndpointCall<Record<string, never>, JobsQuery, undefined>, { items: JobView[] }>('admin.jobs.list'),
};

/** Most object keys one ownership question carries. */
export const MAX_OWNERSHIP_BATCH = 500;

export interface ObjectKeys {
  readonly keys: readonly string[];
}
export interface OwnedObjectKeys {
  readonly owned: readonly string[];
}

/**
 * The staging clean-up asks every app that keeps stored files which of some object keys a row
 * of its own holds (a stored file's object key is the staging key it was uploaded under).
 */
export const ObjectOwnerMessages = {
  /** Firmware binaries and release notes. */
  firmware: defineMessage<ObjectKeys, OwnedObjectKeys>('firmware.objects.owned'),
  /** Log files. */
  logdata: defineMessage<ObjectKeys, OwnedObjectKeys>('logdata.objects.owned'),
};
