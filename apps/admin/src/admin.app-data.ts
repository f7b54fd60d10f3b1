import { ProtectionEvents } from '@app/contracts';
import type { AppDataDeclaration } from '@app/platform';
import { bumpProtectionRevision } from './repositories/protection.repository.js';

/**
 * The admin app's data in a backup (docs/architecture.md "Backups: each app's data"). The
 * raw request log is not part of it: it can hold hundreds of millions of rows, the daily
 * counters (usage_daily) keep what the statistics need, and it stays as it is across a
 * restore. Add a table to `excluded` to keep it out of backups and restores alike.
 */
export const ADMIN_APP_DATA: AppDataDeclaration = {
  app: 'admin',
  tables: ['audit_log', 'security_event', 'detector_episode', 'ip_blocks', 'usage_daily', 'health_sample', 'health_daily'],
  excluded: {
    request_log: 'the raw request log (day partitions): too large to back up; usage_daily keeps its daily counts',
    request_log_unpartitioned: 'the request log of older installations, as request_log',
    request_log_bulk: 'the successful update checks of the request log, a row per batch and day: as request_log',
    request_log_batch: 'ids of request-log batches already stored: belongs with request_log',
    usage_unfolded:
      'request-log batches stored but not yet summed into usage_daily (a second or so of them): belongs with request_log, which keeps their entries',
    maintenance_setting: 'the running service state: a restore switches maintenance on and back itself, so it must not be overwritten',
    backup_run: 'the records of backup, verify and restore runs: a restore keeps them',
  },
  // The gateways enforce the IP blocks: a new revision makes every one re-read them at once.
  afterImport: async (manager) => {
    const revision = await bumpProtectionRevision(manager);
    return (bus) => bus.emit(ProtectionEvents.changed, { revision });
  },
};
