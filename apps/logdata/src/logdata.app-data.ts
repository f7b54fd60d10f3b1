import type { AppDataDeclaration } from '@app/platform';

/** The logdata app's data in a backup (docs/architecture.md "Backups: each app's data"); every log file is listed. */
export const LOGDATA_APP_DATA: AppDataDeclaration = {
  app: 'logdata',
  tables: ['log_file'],
  excluded: {},
  files: [{ table: 'log_file', key: 'object_key', size: 'size_bytes' }],
};
