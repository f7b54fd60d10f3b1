// The first start's database, run by main.ts in a child process that ends (first-start.ts says
// why): creates the embedded database under DATA_DIR and runs every app's migrations, as
// `npm run migrate` does, then exits (code 1 when that failed).
import { BACKEND_APPS } from '@app/contracts';
import { JsonLogger, loadConfig, migrateAppDatabases } from '@app/infra';
import { BACKEND_MODULES } from './app-modules.js';

const logger = new JsonLogger('standalone');
try {
  const started = Date.now();
  const config = loadConfig(process.env);
  await migrateAppDatabases(
    config,
    BACKEND_APPS.map((app) => BACKEND_MODULES[app].database),
  );
  logger.info('embedded database created', { data_dir: config.dataDir, duration_ms: Date.now() - started });
  process.exit(0);
} catch (err) {
  logger.error(err instanceof Error ? err : new Error(String(err)), 'creating the embedded database failed');
  process.exit(1);
}
