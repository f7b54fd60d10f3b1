import type { AppDataDeclaration } from '@app/platform';

/** The registry app's data in a backup (docs/architecture.md "Backups: each app's data"). */
export const REGISTRY_APP_DATA: AppDataDeclaration = {
  app: 'registry',
  tables: ['device', 'device_tag', 'outbox', 'rollout_offer', 'device_history', 'device_report'],
  excluded: {},
};
