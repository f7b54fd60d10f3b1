import { spawnSync } from 'node:child_process';
import { describe, expect, it, jest } from '@jest/globals';

// Migrating every app on a fresh database takes a few seconds.
jest.setTimeout(60_000);

describe('apps/<app>/schema.sql', () => {
  it('is what the app’s migrations make (run `npm run schema` after writing a migration)', () => {
    // The script migrates a throwaway database with the built CLI (dist/) and compares pg_dump's schema with each file.
    const check = spawnSync(process.execPath, ['scripts/schema.mjs', '--check'], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
