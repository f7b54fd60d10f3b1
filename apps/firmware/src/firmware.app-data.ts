import type { AppDataDeclaration } from '@app/platform';

/** The firmware app's data in a backup (docs/architecture.md "Backups: each app's data"); every binary and notes file is listed. */
export const FIRMWARE_APP_DATA: AppDataDeclaration = {
  app: 'firmware',
  tables: ['build', 'build_tag', 'tag_sync_op', 'outbox', 'update_signing_keys', 'rollout'],
  excluded: {
    tag_sync_lease: 'which running process replays tag changes: meaningless to another run, and it expires by itself',
    rollout_evaluator_lease: 'which running process evaluates rollouts: meaningless to another run, and it expires by itself',
  },
  files: [
    { table: 'build', key: 'object_key', size: 'size_bytes' },
    { table: 'build', key: 'notes_object_key', size: 'notes_size_bytes' },
  ],
};
