import { type DataSource, MigrationExecutor, type QueryRunner } from 'typeorm';
import { JsonLogger } from '../logging/logger.js';
import { quoteIdent } from './sql.js';

/**
 * Running an app's migrations on an open DataSource (connect.ts opens it):
 * `CREATE SCHEMA IF NOT EXISTS <schema>` then the pending migrations (one transaction each),
 * all under `pg_advisory_lock(<migrations>, hashtext(<schema>))` held on the same connection,
 * so replicas of one app starting together run them exactly once.
 */

/** First key of the advisory lock taken around schema creation + migrations ('migr'). */
const MIGRATION_LOCK_CLASS = 0x6d696772;

const logger = new JsonLogger('database');

/** The migration results of migrateAppDatabases (connect.ts), per schema. */
export interface MigrationReport {
  readonly schema: string;
  /** Names of the migrations applied now, oldest first (empty when up to date). */
  readonly applied: string[];
}

/**
 * Runs `work` on one connection holding the app's migration advisory lock. On the embedded
 * database the lock is trivially ours (one session) and the held connection already excludes
 * every other user of the session.
 */
async function withMigrationLock<T>(dataSource: DataSource, schema: string, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner('master');
  try {
    await runner.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
    try {
      return await work(runner);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}

export async function runMigrationsLocked(dataSource: DataSource, schema: string): Promise<string[]> {
  const applied = await withMigrationLock(dataSource, schema, async (runner) => {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    return (await executor.executePendingMigrations()).map((m) => m.name);
  });
  if (applied.length) logger.info('migrations applied', { schema, migrations: applied });
  return applied;
}

export async function warnAboutPendingMigrations(dataSource: DataSource, schema: string): Promise<void> {
  try {
    const pending = await new MigrationExecutor(dataSource).getPendingMigrations();
    if (pending.length) {
      logger.write('warn', 'pending migrations: run `npm run migrate`', { schema, migrations: pending.map((m) => m.name) });
    }
  } catch (err) {
    logger.write('warn', 'could not check pending migrations', { schema, error: err instanceof Error ? err.message : String(err) });
  }
}

/** Reverts the last applied migration (its `down`) under the migration lock; its name, or null when none was applied. */
export function undoLastMigrationLocked(dataSource: DataSource, schema: string): Promise<string | null> {
  return withMigrationLock(dataSource, schema, async (runner) => {
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    const [last] = await executor.getExecutedMigrations();
    if (!last) return null;
    await executor.undoLastMigration();
    return last.name;
  });
}
