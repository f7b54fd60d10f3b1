// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { prepareServiceRuntime } from '../../../libs/infra/src/runtime/service-runtime.js';

prepareServiceRuntime();
// Tracing first: it patches the database, Redis and S3 clients as they load.
const { startTracingAtEntry } = await import('../../../libs/infra/src/telemetry/telemetry.js');
await startTracingAtEntry('firmware-service');
const { closeOnSignals, JsonLogger } = await import('@app/infra');
const { startStandalone } = await import('./standalone.js');

const logger = new JsonLogger('standalone');
const signals = closeOnSignals(logger);
try {
  const service = await startStandalone();
  signals.started(() => service.close());
} catch (err) {
  logger.error(err instanceof Error ? err : new Error(String(err)), 'failed to start');
  process.exit(1);
}
