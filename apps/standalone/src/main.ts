// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { getSourceMapsSupport, setSourceMapsSupport } from 'node:module';
import { prepareServiceRuntime } from '../../../libs/infra/src/runtime/service-runtime.js';

prepareServiceRuntime();
// With --enable-source-maps, stack traces map this project's code to its TypeScript but not
// node_modules' code to theirs: those source maps, parsed as each package loads, held about
// 8 MiB of the heap (docs/performance.md "Memory of the embedded default").
const sourceMaps = getSourceMapsSupport();
if (sourceMaps.enabled) setSourceMapsSupport(true, { nodeModules: false, generatedCode: sourceMaps.generatedCode });
// Tracing first: it patches the database, Redis and S3 clients as they load.
const { startTracingAtEntry } = await import('../../../libs/infra/src/telemetry/telemetry.js');
await startTracingAtEntry('firmware-service');
const { closeOnSignals, JsonLogger, loadConfig } = await import('@app/infra');
const { createEmbeddedDatabaseApart, createsEmbeddedDatabase } = await import('./first-start.js');

const logger = new JsonLogger('standalone');
const signals = closeOnSignals(logger);
try {
  // An empty DATA_DIR's database is created by a child process (first-start.ts), while this one loads the apps.
  const [{ startStandalone }] = await Promise.all([
    import('./standalone.js'),
    createsEmbeddedDatabase(loadConfig(process.env)) ? createEmbeddedDatabaseApart() : undefined,
  ]);
  const service = await startStandalone();
  signals.started(() => service.close());
} catch (err) {
  logger.error(err instanceof Error ? err : new Error(String(err)), 'failed to start');
  process.exit(1);
}
