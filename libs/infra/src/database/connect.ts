import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { ServiceConfig } from '../config/config.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';
import type { AppDatabaseOptions } from './database.js';
import { type MigrationReport, runMigrationsLocked, undoLastMigrationLocked, warnAboutPendingMigrations } from './migrations.js';
import { EmbeddedDatabase, type EmbeddedSettings } from './pglite-driver.js';
import { measurePool } from './pool-metrics.js';
import { assertSchemaName } from './sql.js';

export type { MigrationReport } from './migrations.js';

/**
 * Opening app databases. Two adapters, chosen by the config alone:
 *
 * - PostgreSQL (DATABASE_URL set): TypeORM's postgres driver on `pg`, one pool of
 *   `DATABASE_POOL_SIZE` connections (config.databasePoolSize, default 10) per app (per DataSource).
 * - Embedded (no DATABASE_URL): one PGlite instance per process under `${DATA_DIR}/db`,
 *   shared by every app of a standalone run (one DataSource per app schema), behind DATA_DIR's
 *   lock file, through the custom driver of pglite-driver.ts (a FIFO pool of size one).
 *
 * On both, every DataSource is created with `schema: <app schema>`, so TypeORM's migrations
 * table is `<schema>.migrations` and an entity that forgets its schema still lands in the
 * app's schema; `synchronize` is always off, extensions are never installed and
 * `gen_random_uuid()` (pgcrypto, built in) generates uuids.
 *
 * Running migrations (under the migration lock): migrations.ts.
 *
 * Result types are identical on both adapters (both are parsed by `pg`'s type parsers):
 * int8 / bigint / count(*) come back as decimal strings (convert with `toInt`), numeric as
 * string, timestamptz / timestamp / date as Date, bytea as Buffer, json/jsonb parsed, arrays
 * as arrays. Errors are TypeORM QueryFailedError with the SQLSTATE in `code` (and
 * `driverError.code`): use `isUniqueViolation(err)` for "already exists".
 */

type Adapter = 'postgres' | 'embedded';

interface EmbeddedState {
  readonly dataDir: string;
  readonly lock: DataDirLock;
  readonly database: Promise<EmbeddedDatabase>;
}

const openSources = new Map<DataSource, Adapter>();
let embedded: EmbeddedState | null = null;
/** DataSources being opened (not yet in openSources): the embedded database must stay open for them. */
let opening = 0;

function dataSourceOptions(config: ServiceConfig, options: AppDatabaseOptions, driver: unknown): DataSourceOptions {
  const schema = options.schema;
  const common = {
    type: 'postgres' as const,
    schema,
    entities: [...options.entities],
    migrations: [...options.migrations],
    migrationsTableName: 'migrations',
    // run by openAppDatabase itself, under the advisory lock (see runMigrationsLocked)
    migrationsRun: false,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    dropSchema: false,
    installExtensions: false,
    uuidExtension: 'pgcrypto' as const,
    logging: false,
  };
  if (config.databaseUrl) {
    return {
      ...common,
      url: config.databaseUrl,
      poolSize: config.databasePoolSize,
      applicationName: schema,
      connectTimeoutMS: 10_000,
    };
  }
  return { ...common, driver };
}

/**
 * Opens the app's DataSource: PostgreSQL when DATABASE_URL is set, otherwise the embedded
 * PGlite under DATA_DIR (one instance per process, shared by the apps of a standalone run,
 * guarded by DATA_DIR's lock file). Creates the schema and runs migrations unless told not to.
 */
export async function openAppDatabase(config: ServiceConfig, options: AppDatabaseOptions): Promise<DataSource> {
  const dataSource = await openDataSource(config, options, options.migrate === false ? 'check' : 'migrate');
  measurePool(options.schema, dataSource, config.databasePoolSize);
  return dataSource;
}

/** migrate: run pending migrations; check: only warn about them; none: neither (the caller migrates). */
async function openDataSource(config: ServiceConfig, options: AppDatabaseOptions, migrations: 'migrate' | 'check' | 'none'): Promise<DataSource> {
  const schema = assertSchemaName(options.schema);
  const adapter: Adapter = config.databaseUrl ? 'postgres' : 'embedded';
  let dataSource: DataSource;
  opening += 1;
  try {
    const driver =
      adapter === 'embedded' ? (await openEmbedded(config.dataDir, { sharedBuffersMb: config.embeddedSharedBuffersMb })).typeormDriver() : undefined;
    dataSource = new DataSource(dataSourceOptions(config, options, driver));
    await dataSource.initialize();
    openSources.set(dataSource, adapter);
  } catch (err) {
    opening -= 1;
    await closeEmbeddedIfUnused();
    throw err;
  }
  opening -= 1;
  try {
    if (migrations === 'migrate') await runMigrationsLocked(dataSource, schema);
    else if (migrations === 'check') await warnAboutPendingMigrations(dataSource, schema);
  } catch (err) {
    await closeSource(dataSource);
    await closeEmbeddedIfUnused();
    throw err;
  }
  return dataSource;
}

/**
 * `npm run migrate`: creates each app's schema and runs its pending migrations (in the order
 * given), then closes what it opened (for the embedded database: PGlite and DATA_DIR's lock,
 * unless the process had them open before).
 */
export async function migrateAppDatabases(config: ServiceConfig, optionsList: readonly AppDatabaseOptions[]): Promise<MigrationReport[]> {
  const reports: MigrationReport[] = [];
  try {
    for (const options of optionsList) {
      const dataSource = await openDataSource(config, options, 'none');
      try {
        reports.push({ schema: options.schema, applied: await runMigrationsLocked(dataSource, options.schema) });
      } finally {
        await closeSource(dataSource);
      }
    }
  } finally {
    await closeEmbeddedIfUnused();
  }
  return reports;
}

/**
 * Reverts the app's last applied migration (its `down`) under the migration lock; returns its
 * name, or null when none was applied. Opens and closes its own DataSource.
 */
export async function revertLastMigration(config: ServiceConfig, options: AppDatabaseOptions): Promise<string | null> {
  const dataSource = await openDataSource(config, options, 'none');
  try {
    return await undoLastMigrationLocked(dataSource, options.schema);
  } finally {
    await closeSource(dataSource);
    await closeEmbeddedIfUnused();
  }
}

/**
 * Closes every DataSource this process opened, then the embedded PGlite instance, and
 * releases DATA_DIR's lock. Safe to call more than once.
 */
export async function closeDatabases(): Promise<void> {
  const sources = [...openSources.keys()];
  const results = await Promise.allSettled(sources.map((ds) => closeSource(ds)));
  const state = embedded;
  embedded = null;
  if (state) {
    try {
      const database = await state.database.catch(() => null);
      await database?.close();
    } finally {
      state.lock.release();
    }
  }
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, 'closing the databases failed');
}

async function closeSource(dataSource: DataSource): Promise<void> {
  openSources.delete(dataSource);
  if (dataSource.isInitialized) await dataSource.destroy();
}

/** Closes PGlite and gives back DATA_DIR's lock once no DataSource uses them any more. */
async function closeEmbeddedIfUnused(): Promise<void> {
  if (!embedded || opening > 0) return;
  for (const [dataSource, adapter] of openSources) {
    if (!dataSource.isInitialized)
      openSources.delete(dataSource); // destroyed directly
    else if (adapter === 'embedded') return;
  }
  const state = embedded;
  embedded = null;
  try {
    const database = await state.database.catch(() => null);
    await database?.close();
  } finally {
    state.lock.release();
  }
}

/** The embedded database's directory under DATA_DIR. */
export function embeddedDatabaseDir(dataDir: string): string {
  return join(resolve(dataDir), 'db');
}

/** Whether DATA_DIR holds an embedded database yet (PostgreSQL's initdb writes PG_VERSION; the first start creates it). */
export function hasEmbeddedDatabase(dataDir: string): boolean {
  return existsSync(join(embeddedDatabaseDir(dataDir), 'PG_VERSION'));
}

function openEmbedded(dataDir: string, settings: EmbeddedSettings): Promise<EmbeddedDatabase> {
  const dir = resolve(dataDir);
  if (embedded && embedded.dataDir !== dir) {
    return Promise.reject(new Error(`the embedded database of this process is already open on DATA_DIR ${embedded.dataDir}, not ${dir}`));
  }
  if (!embedded) {
    let lock: DataDirLock;
    try {
      lock = acquireDataDirLock(dir);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const database = EmbeddedDatabase.open(embeddedDatabaseDir(dir), settings);
    const state: EmbeddedState = { dataDir: dir, lock, database };
    embedded = state;
    database.catch(() => {
      if (embedded === state) embedded = null;
      lock.release();
    });
  }
  return embedded.database;
}
