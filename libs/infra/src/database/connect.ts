import type { DataSource } from 'typeorm';
import type { ServiceConfig } from '../config/config.js';
import type { AppDatabaseOptions } from './database.js';

/**
 * Opens the app's DataSource: PostgreSQL when DATABASE_URL is set, otherwise the embedded
 * PGlite under DATA_DIR (one instance per process, shared by the apps of a standalone run,
 * guarded by DATA_DIR's lock file). Creates the schema and runs migrations unless told not to.
 */
export async function openAppDatabase(config: ServiceConfig, options: AppDatabaseOptions): Promise<DataSource> {
  throw new Error('not implemented yet');
}
