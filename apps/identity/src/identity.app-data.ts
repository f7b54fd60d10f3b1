import type { AppDataDeclaration } from '@app/platform';

/**
 * The identity app's data in a backup, all of it (docs/architecture.md "Backups: each app's
 * data"): signing keys, secrets, sessions and tokens too, so that what was valid at backup
 * time is valid again after a restore. The outbox goes with the rest: audit entries not yet
 * delivered to the admin app at backup time are delivered after a restore (the admin app
 * stores each once).
 */
export const IDENTITY_APP_DATA: AppDataDeclaration = {
  app: 'identity',
  tables: [
    'customers',
    'users',
    'memberships',
    'signing_keys',
    'secrets',
    'api_tokens',
    'sandbox_tokens',
    'sessions',
    'refresh_tokens',
    'login_challenges',
    'login_attempts',
    'outbox',
  ],
  excluded: {},
};
