// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { prepareServiceRuntime } from '../../../libs/infra/src/runtime/service-runtime.js';

prepareServiceRuntime();
// Tracing first: it patches the database, Redis and S3 clients as they load.
const { startTracingAtEntry } = await import('../../../libs/infra/src/telemetry/telemetry.js');
await startTracingAtEntry('gateway');
const { assertDistributedConfig, closeMessageBuses, closeOnSignals, JsonLogger, loadConfig } = await import('@app/infra');
const { startGateway } = await import('./start-gateway.js');

const logger = new JsonLogger('gateway');
const signals = closeOnSignals(logger);
try {
  const config = loadConfig();
  assertDistributedConfig(config, { nats: true, s3: true, downloadSecret: true });
  const gateway = await startGateway(config);
  // A signal closes the gateway (the HTTP server drains), then ends the process.
  signals.started(async () => {
    await gateway.app.close();
    await closeMessageBuses();
  });
} catch (err) {
  logger.error(err instanceof Error ? err : new Error(String(err)), 'failed to start');
  process.exit(1);
}
