// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { exitUnlessSupportedNode } from '../../../libs/infra/src/runtime/supported-node.js';

exitUnlessSupportedNode();
const { closeOnSignals, JsonLogger, loadConfig, startTelemetry } = await import('@app/infra');
const { startStandalone } = await import('./standalone.js');

const logger = new JsonLogger('standalone');
const signals = closeOnSignals(logger);
try {
  await startTelemetry('firmware-service', loadConfig().otelEnabled);
  const service = await startStandalone();
  signals.started(() => service.close());
} catch (err) {
  logger.error(err instanceof Error ? err : new Error(String(err)), 'failed to start');
  process.exit(1);
}
